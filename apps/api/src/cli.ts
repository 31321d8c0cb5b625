// The admin CLI (`mp-admin <command>`, §3): operator commands that need no HTTP. Parses the
// command line, prints help, boots the domain without the HTTP layer and runs one command of
// admin/commands.ts. The result is JSON on stdout; progress, logs and errors go to stderr.
import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { parseArgs, ParseArgsConfig } from 'node:util';
import {
  AppConfigModule,
  ChannelsModule,
  ConfigError,
  ContactsModule,
  DatabaseModule,
  DomainError,
  ImportsModule,
  JsonLogger,
  LimitsModule,
  loadConfig,
  QueuesModule,
  RedisModule,
  SendingDomainsModule,
  setLogSink,
  TenancyModule,
  ValidationFailedError,
} from '@app/domain';
import { AdminCommand, checkOptions, Flags, RAW_OUTPUT } from './admin/admin-command';
import { ADMIN_COMMANDS } from './admin/commands';
import { commandHelp, TOOL, toolHelp } from './admin/help';

@Module({
  imports: [
    AppConfigModule,
    DatabaseModule.forRoot({ migrate: false }),
    RedisModule,
    LimitsModule,
    TenancyModule,
    QueuesModule,
    ContactsModule,
    ImportsModule,
    SendingDomainsModule,
    ChannelsModule,
  ],
})
class CliModule {}

export const COMMANDS = ADMIN_COMMANDS.map((c) => c.name);

interface Parsed {
  command?: AdminCommand;
  flags: Flags;
  help: boolean;
  json: boolean;
}

/** Finds the command and reads its options; usage mistakes are `ValidationFailedError`s. */
export function parseCommandLine(argv: string[]): Parsed {
  const json = argv.includes('--json');
  const help = argv.includes('--help') || argv.includes('-h') || argv[0] === 'help';
  const name = argv.find((a, i) => !a.startsWith('-') && !(i === 0 && a === 'help'));
  if (name === undefined) return { flags: {}, help: true, json };
  const command = ADMIN_COMMANDS.find((c) => c.name === name);
  if (!command) {
    throw ValidationFailedError.field(
      'command',
      'enum',
      `unknown command "${name}"; the commands are ${COMMANDS.join(', ')}`,
    );
  }
  if (help) return { command, flags: {}, help, json };
  const options: ParseArgsConfig['options'] = {
    json: { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
  };
  for (const [option, o] of Object.entries(command.options)) options[option] = { type: o.type };
  try {
    const args = [...argv];
    args.splice(argv.indexOf(name), 1);
    const { values, positionals } = parseArgs({
      args,
      options,
      allowPositionals: true,
      strict: true,
    });
    if (positionals.length) {
      throw ValidationFailedError.field(
        'command',
        'unexpected',
        `unexpected argument "${positionals[0]}" (options start with --)`,
      );
    }
    return { command, flags: values as Flags, help, json };
  } catch (err) {
    if (err instanceof ValidationFailedError) throw err;
    const code = (err as { code?: string }).code;
    const option = /'(-[^']*)'/.exec((err as Error).message)?.[1] ?? '';
    const message =
      code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION'
        ? `unknown option ${option}`
        : code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE' &&
            /argument missing/.test((err as Error).message)
          ? `${option.split(' ')[0]} needs a value`
          : code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE'
            ? `${option.split(' ')[0]} takes no value`
            : (err as Error).message;
    throw ValidationFailedError.field(
      option.replace(/^-+/, '').split(' ')[0] || 'command',
      'usage',
      message,
    );
  }
}

/** Runs one command and returns its result; throws domain, configuration or usage errors. */
export async function runAdmin(argv: string[]): Promise<Record<string, unknown>> {
  const { command, flags } = parseCommandLine(argv);
  if (!command) {
    throw ValidationFailedError.field(
      'command',
      'required',
      `give a command: ${COMMANDS.join(', ')}`,
    );
  }
  checkOptions(command, flags);
  const config = loadConfig();
  const app = await NestFactory.createApplicationContext(CliModule, {
    logger: new JsonLogger('admin', config.logLevel === 'debug' ? 'debug' : 'warn'),
    // A boot failure is thrown to the caller (and reported), never a bare process.exit.
    abortOnError: false,
  });
  try {
    return await command.run({ app, config }, flags);
  } finally {
    await app.close();
  }
}

/** One error, as JSON (`--json`) or in plain words with a pointer to the help. */
export function describeError(err: unknown, argv: string[], json: boolean): string {
  const command = ADMIN_COMMANDS.find((c) => argv.includes(c.name));
  if (json) {
    const body =
      err instanceof ValidationFailedError
        ? { error: err.message, code: err.code, errors: err.errors }
        : err instanceof DomainError
          ? { error: err.message, code: err.code }
          : { error: (err as Error).message };
    return JSON.stringify(body);
  }
  const prefix = command ? `${TOOL} ${command.name}` : TOOL;
  if (err instanceof ValidationFailedError) {
    const lines = err.errors.map((e) =>
      e.field === 'command' || e.message.includes(e.field) ? e.message : `${e.field}: ${e.message}`,
    );
    const help = command ? `${TOOL} ${command.name} --help` : `${TOOL} --help`;
    return `${prefix}: ${lines.join('; ')}\nRun "${help}" for the usage.`;
  }
  if (err instanceof DomainError || err instanceof ConfigError) return `${prefix}: ${err.message}`;
  return `${prefix} failed: ${(err as Error).message}`;
}

/**
 * Entry of the `mp-admin` bin (scripts/admin.js): help on stdout and exit 0; a result as JSON on
 * stdout and exit 0; an error on stderr and exit 1. Log lines go to stderr, never to stdout.
 */
export function cliMain(argv: string[]): void {
  setLogSink((line) => process.stderr.write(line + '\n'));
  const json = argv.includes('--json');
  let parsed: Parsed;
  try {
    parsed = parseCommandLine(argv);
  } catch (err) {
    process.stderr.write(describeError(err, argv, json) + '\n');
    process.exit(1);
  }
  if (parsed.help) {
    process.stdout.write(parsed.command ? commandHelp(parsed.command) : toolHelp(ADMIN_COMMANDS));
    process.exit(0);
  }
  runAdmin(argv).then(
    (out) => {
      const raw = (out as { [RAW_OUTPUT]?: Buffer })[RAW_OUTPUT];
      const text = raw ?? JSON.stringify(out, null, json ? undefined : 2) + '\n';
      // exit once stdout has taken it all (a pipe may take megabytes slowly).
      process.stdout.write(text, () => process.exit(0));
    },
    (err: unknown) => {
      process.stderr.write(describeError(err, argv, json) + '\n');
      process.exit(1);
    },
  );
}
