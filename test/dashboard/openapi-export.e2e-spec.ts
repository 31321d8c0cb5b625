// docs/openapi.json matches the api as built (the dashboard's client types are generated from it):
// a route or DTO changed without `npm run openapi` fails here (the test command builds the api first).
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

describe('OpenAPI export', () => {
  it('the committed document is what the current api build gives', () => {
    const script = join(__dirname, '../../scripts/export-openapi.js');
    let output = '';
    try {
      output = execFileSync(process.execPath, [script, '--check'], {
        encoding: 'utf8',
        stdio: 'pipe',
      });
    } catch (err) {
      const e = err as { stdout?: string; stderr?: string };
      throw new Error(`export-openapi --check failed:\n${e.stdout ?? ''}${e.stderr ?? ''}`);
    }
    expect(output).toContain('up to date');
  });
});
