import { ValidationFailedError } from '@app/domain';
import { ADMIN_COMMANDS } from './admin/commands';
import { checkOptions } from './admin/admin-command';
import { commandHelp, toolHelp } from './admin/help';
import { describeError, parseCommandLine } from './cli';

const usageError = (argv: string[]): ValidationFailedError => {
  try {
    parseCommandLine(argv);
  } catch (err) {
    if (err instanceof ValidationFailedError) return err;
    throw err;
  }
  throw new Error(`no usage error for ${argv.join(' ')}`);
};

describe('admin CLI command line', () => {
  it('asks for help with no arguments, --help, -h or help', () => {
    for (const argv of [[], ['--help'], ['-h'], ['help']]) {
      const parsed = parseCommandLine(argv);
      expect(parsed.help).toBe(true);
      expect(parsed.command).toBeUndefined();
    }
  });

  it("asks for a command's help with <command> --help and help <command>", () => {
    for (const argv of [
      ['create-org', '--help'],
      ['help', 'create-org'],
      ['create-org', '-h'],
    ]) {
      expect(parseCommandLine(argv)).toMatchObject({ command: { name: 'create-org' }, help: true });
    }
  });

  it('reads a command and its options, wherever --json stands', () => {
    expect(parseCommandLine(['--json', 'create-org', '--name', 'Acme', '--with-key'])).toEqual({
      command: expect.objectContaining({ name: 'create-org' }),
      flags: { json: true, name: 'Acme', 'with-key': true },
      help: false,
      json: true,
    });
  });

  it('refuses usage mistakes in plain words', () => {
    expect(usageError(['frob']).errors[0].message).toBe(
      `unknown command "frob"; the commands are ${ADMIN_COMMANDS.map((c) => c.name).join(', ')}`,
    );
    expect(usageError(['create-org', '--nam', 'x']).errors[0]).toMatchObject({
      field: 'nam',
      message: 'unknown option --nam',
    });
    expect(usageError(['create-org', 'Acme']).errors[0].message).toMatch(
      /unexpected argument "Acme"/,
    );
    expect(usageError(['create-org', '--name']).errors[0].message).toBe('--name needs a value');
    expect(usageError(['create-org', '--with-key=yes']).errors[0].message).toBe(
      '--with-key takes no value',
    );
  });

  it('checks required options and ids before anything boots, all at once', () => {
    const { command, flags } = parseCommandLine(['create-key', '--org', 'abc', '--name', 'k']);
    let error: unknown;
    try {
      checkOptions(command!, flags);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ValidationFailedError);
    expect((error as ValidationFailedError).errors).toEqual([
      { field: 'org', rule: 'uuid', message: '--org must be an id (a UUID), got "abc"' },
      { field: 'scopes', rule: 'required', message: '--scopes is required' },
    ]);
    expect(describeError(error, ['create-key'], false)).toBe(
      'mp-admin create-key: --org must be an id (a UUID), got "abc"; --scopes is required\n' +
        'Run "mp-admin create-key --help" for the usage.',
    );
  });
});

describe('admin CLI help', () => {
  it('lists every command with its summary, rotate-keys and import-file included', () => {
    const help = toolHelp(ADMIN_COMMANDS);
    expect(help).toMatch(/^Usage: mp-admin <command> \[options\] \[--json\]$/m);
    for (const c of ADMIN_COMMANDS) expect(help).toContain(`  ${c.name}`);
    expect(help).toMatch(/^ {2}rotate-keys +re-encrypt/m);
    expect(help).toMatch(/^ {2}import-file +import a CSV/m);
    expect(help).toContain('docker compose run --rm api admin');
  });

  it.each(ADMIN_COMMANDS.map((c) => [c.name, c]))(
    '%s --help shows its usage, every option and an example',
    (_name, command) => {
      const help = commandHelp(command);
      expect(help).toContain(`Usage: mp-admin ${command.name}`);
      for (const [option, o] of Object.entries(command.options)) {
        expect(help).toMatch(new RegExp(`^ {2}--${option}\\b.*${escapeRe(o.description)}`, 'm'));
      }
      expect(command.examples.length).toBeGreaterThan(0);
      expect(help).toMatch(/^Examples?:\n {2}.*mp-admin /m);
    },
  );

  it('marks required options in the usage line and optional ones in brackets', () => {
    const help = commandHelp(ADMIN_COMMANDS.find((c) => c.name === 'create-org')!);
    expect(help).toContain(
      'Usage: mp-admin create-org --name NAME [--plan PLAN] [--with-key] [--json]',
    );
    expect(help).toMatch(/--name NAME +the organization name \(required\)/);
  });
});

describe('admin CLI errors', () => {
  const missing = ValidationFailedError.field('name', 'required', '--name is required');

  it('reads as a sentence with a pointer to the help on a terminal', () => {
    expect(describeError(missing, ['create-org'], false)).toBe(
      'mp-admin create-org: --name is required\nRun "mp-admin create-org --help" for the usage.',
    );
    expect(describeError(new Error('connect ECONNREFUSED'), ['migrate'], false)).toBe(
      'mp-admin migrate failed: connect ECONNREFUSED',
    );
  });

  it('is one JSON object with --json', () => {
    expect(JSON.parse(describeError(missing, ['create-org', '--json'], true))).toEqual({
      error: 'Validation failed',
      code: 'E_VALIDATION_ERROR',
      errors: [{ field: 'name', rule: 'required', message: '--name is required' }],
    });
  });
});

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
