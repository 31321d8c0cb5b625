// The admin CLI's help texts: the tool's (its commands) and each command's (usage, options, examples).
import { AdminCommand, AdminOption } from './admin-command';

export const TOOL = 'mp-admin';

const COMMON: Record<string, AdminOption> = {
  json: {
    type: 'boolean',
    description: 'print the result as one line of JSON; errors as JSON too',
  },
  help: { type: 'boolean', description: "show this command's usage, options and examples" },
};

function wrap(text: string, width = 88, indent = ''): string {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/)) {
    if (line && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) lines.push(line);
  return lines.map((l) => indent + l).join('\n');
}

function flag(name: string, option: AdminOption): string {
  return option.value ? `--${name} ${option.value}` : `--${name}`;
}

function table(rows: [string, string][]): string {
  const width = Math.max(...rows.map(([left]) => left.length)) + 2;
  return rows.map(([left, right]) => `  ${left.padEnd(width)}${right}`).join('\n');
}

/** `mp-admin NAME --required X [--optional Y] [--json]`, wrapped between options. */
export function usageLine(command: AdminCommand, width = 88): string {
  const parts = Object.entries(command.options).map(([name, o]) =>
    o.required ? flag(name, o) : `[${flag(name, o)}]`,
  );
  const head = `${TOOL} ${command.name}`;
  const lines = [head];
  for (const part of [...parts, '[--json]']) {
    const last = lines.length - 1;
    if (lines[last].length + 1 + part.length > width - 7)
      lines.push(' '.repeat(head.length) + ' ' + part);
    else lines[last] += ` ${part}`;
  }
  return lines.join('\n       ');
}

export function commandHelp(command: AdminCommand): string {
  const options = { ...command.options, ...COMMON };
  return [
    `${TOOL} ${command.name}: ${command.summary}`,
    '',
    `Usage: ${usageLine(command)}`,
    ...(command.description ? ['', wrap(command.description)] : []),
    '',
    'Options:',
    table(
      Object.entries(options).map(([name, o]) => [
        name === 'help' ? '-h, --help' : flag(name, o),
        `${o.description}${o.required ? ' (required)' : ''}`,
      ]),
    ),
    '',
    command.examples.length > 1 ? 'Examples:' : 'Example:',
    ...command.examples.map((e) => `  ${e}`),
    '',
  ].join('\n');
}

export function toolHelp(commands: AdminCommand[]): string {
  return [
    `${TOOL}: administer the messaging platform without HTTP: organizations, API keys, users,`,
    'sending limits, key rotation, imports from a local file and migrations.',
    '',
    `Usage: ${TOOL} <command> [options] [--json]`,
    `       ${TOOL} <command> --help`,
    '',
    'Commands:',
    table(commands.map((c) => [c.name, c.summary])),
    '',
    'Options of every command:',
    table(
      Object.entries(COMMON).map(([n, o]) => [
        n === 'help' ? '-h, --help' : `--${n}`,
        o.description,
      ]),
    ),
    '',
    wrap(
      'The result is JSON on stdout (one line with --json); progress and errors go to stderr, and ' +
        'a failure exits with status 1. The tool reads the configuration the platform reads ' +
        '(DATABASE_URL, REDIS_URL, ENCRYPTION_KEY, ...): run it with the environment of the ' +
        'platform it administers. In a checkout: npx mp-admin (or npm run admin --). In Docker: ' +
        'docker compose run --rm api admin.',
    ),
    '',
    'Example:',
    `  npx ${TOOL} create-org --name Acme --with-key --json`,
    '',
  ].join('\n');
}
