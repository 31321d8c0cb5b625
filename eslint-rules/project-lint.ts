// Lints texts as if they were files of the repository, with the project's own ESLint
// configuration, in a child process (ESLint's flat config loads as an ES module, which jest's
// CommonJS runtime cannot import).
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

const root = join(__dirname, '..');

/** The messages of rule `ruleId` that ESLint reports for each (path, text), in file order. */
export function projectLint(
  files: Record<string, string>,
  ruleId: string,
): Record<string, string[]> {
  const script = `
    const { ESLint } = require('eslint');
    (async () => {
      const eslint = new ESLint({ cwd: process.cwd() });
      const [files, ruleId] = JSON.parse(process.argv[1]);
      const out = {};
      for (const [filePath, text] of Object.entries(files)) {
        const [result] = await eslint.lintText(text, { filePath });
        out[filePath] = result.messages.filter((m) => m.ruleId === ruleId).map((m) => m.message);
      }
      process.stdout.write(JSON.stringify(out));
    })().catch((e) => { console.error(e); process.exit(1); });`;
  const stdout = execFileSync(process.execPath, ['-e', script, JSON.stringify([files, ruleId])], {
    cwd: root,
    encoding: 'utf8',
  });
  return JSON.parse(stdout) as Record<string, string[]>;
}
