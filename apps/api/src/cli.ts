// `npm run admin -- <command> [--json]`: operator commands that need no HTTP (§3).
import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { parseArgs } from 'node:util';
import { DataSource } from 'typeorm';
import {
  ApiKeyService,
  AppConfigModule,
  ConfigError,
  ContactsModule,
  DatabaseModule,
  DomainError,
  ImportsModule,
  JsonLogger,
  LimitsModule,
  loadConfig,
  LoginService,
  migrateEngagementDatabase,
  OrganizationService,
  PLANS,
  Plan,
  QueuesModule,
  RedisModule,
  ROLES,
  rotateContactEncryption,
  Role,
  runMigrations,
  TenancyModule,
  UserService,
  ValidationFailedError,
} from '@app/domain';
import { IMPORT_FILE_OPTIONS, importFileCommand } from './imports/import-file.command';

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
  ],
})
class CliModule {}

type Flags = Record<string, string | boolean | undefined>;

function need(flags: Flags, name: string): string {
  const v = flags[name];
  if (typeof v !== 'string' || !v)
    throw ValidationFailedError.field(name, 'required', `--${name} is required`);
  return v;
}

function optInt(flags: Flags, name: string): number | null | undefined {
  const v = flags[name];
  if (v === undefined) return undefined;
  if (v === 'none' || v === 'null') return null;
  if (typeof v !== 'string' || !/^\d+$/.test(v)) {
    throw ValidationFailedError.field(name, 'type', `--${name} must be a whole number or "none"`);
  }
  return Number(v);
}

function oneOf<T extends string>(
  flags: Flags,
  name: string,
  allowed: readonly T[],
  fallback?: T,
): T {
  const v = (flags[name] as string | undefined) ?? fallback;
  if (!v || !allowed.includes(v as T)) {
    throw ValidationFailedError.field(
      name,
      'enum',
      `--${name} must be one of ${allowed.join(', ')}`,
    );
  }
  return v as T;
}

export const COMMANDS = [
  'migrate',
  'create-org',
  'create-user',
  'create-key',
  'revoke-key',
  'unlock-login',
  'set-limits',
  'rotate-keys',
  'import-file',
] as const;

const OPTIONS = {
  name: { type: 'string' },
  plan: { type: 'string' },
  'with-key': { type: 'boolean' },
  email: { type: 'string' },
  password: { type: 'string' },
  org: { type: 'string' },
  role: { type: 'string' },
  scopes: { type: 'string' },
  'per-minute': { type: 'string' },
  'per-day': { type: 'string' },
  'per-second': { type: 'string' },
  'per-hour': { type: 'string' },
  'per-month': { type: 'string' },
  id: { type: 'string' },
  ip: { type: 'string' },
  'batch-size': { type: 'string' },
  json: { type: 'boolean' },
  ...IMPORT_FILE_OPTIONS,
} as const;

/**
 * Runs one operator command. Output is one JSON object; `create-user` needs a password of at least
 * 12 characters; `unlock-login [--email E] [--ip A]` ends a login lock early (the account's
 * failure window, the IP's, or both).
 */
export async function runAdmin(argv: string[]): Promise<Record<string, unknown>> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: OPTIONS,
    allowPositionals: true,
    strict: true,
  });
  const command = positionals[0];
  if (!command || !(COMMANDS as readonly string[]).includes(command)) {
    throw ValidationFailedError.field(
      'command',
      'enum',
      `command must be one of ${COMMANDS.join(', ')}`,
    );
  }
  const flags = values as Flags;
  const config = loadConfig();
  const app = await NestFactory.createApplicationContext(CliModule, {
    logger: new JsonLogger('admin', config.logLevel === 'debug' ? 'debug' : 'warn'),
    // A boot failure is thrown to the caller (and reported as JSON), never a bare process.exit.
    abortOnError: false,
  });
  try {
    const orgs = app.get(OrganizationService);
    const keys = app.get(ApiKeyService);
    const users = app.get(UserService);
    switch (command) {
      case 'migrate': {
        const ds = app.get(DataSource);
        const migrated = await runMigrations(ds);
        const mainUrl = (ds.options as { url: string }).url;
        const engagement = await migrateEngagementDatabase(config.engagementDatabaseUrl, mainUrl);
        return engagement.length ? { migrated, engagementMigrated: engagement } : { migrated };
      }
      case 'create-org': {
        const org = await orgs.create({
          name: need(flags, 'name'),
          plan: oneOf<Plan>(flags, 'plan', PLANS, 'free'),
        });
        const out: Record<string, unknown> = {
          organization: { id: org.id, name: org.name, plan: org.plan },
        };
        if (flags['with-key']) {
          const { key, value } = await keys.create(org.id, { name: 'admin', scopes: 'all' });
          out.apiKey = { id: key.id, key: value, scopes: key.scopes };
        }
        return out;
      }
      case 'create-user': {
        const user = await users.createUser({
          email: need(flags, 'email'),
          password: need(flags, 'password'),
          organizationId: need(flags, 'org'),
          role: oneOf<Role>(flags, 'role', ROLES, 'member'),
        });
        return { user: { id: user.id, email: user.email } };
      }
      case 'create-key': {
        const scopesFlag = need(flags, 'scopes');
        const { key, value } = await keys.create(need(flags, 'org'), {
          name: need(flags, 'name'),
          scopes: scopesFlag === 'all' ? 'all' : scopesFlag.split(',').map((s) => s.trim()),
          rateLimitPerMinute: optInt(flags, 'per-minute') ?? undefined,
          rateLimitPerDay: optInt(flags, 'per-day'),
        });
        return {
          apiKey: {
            id: key.id,
            organizationId: key.organizationId,
            key: value,
            scopes: key.scopes,
          },
        };
      }
      case 'revoke-key': {
        const key = await keys.revokeById(need(flags, 'id'));
        return { apiKey: { id: key.id, revokedAt: key.revokedAt } };
      }
      case 'unlock-login': {
        // Either or both: an account's window, an IP's window.
        const email = flags.email === undefined ? undefined : need(flags, 'email');
        const ip = flags.ip === undefined && email !== undefined ? undefined : need(flags, 'ip');
        await app.get(LoginService).unlock({ email, ip });
        return { unlocked: { email: email ?? null, ip: ip ?? null } };
      }
      case 'rotate-keys': {
        // Re-encrypts values written under an ENCRYPTION_KEYS_OLD key with ENCRYPTION_KEY and
        // recomputes their blind indexes; afterwards the old key can be dropped.
        const result = await rotateContactEncryption(app.get(DataSource), {
          batchSize: optInt(flags, 'batch-size') ?? 1000,
          organizationId: flags.org === undefined ? undefined : need(flags, 'org'),
        });
        return { rotation: result };
      }
      case 'import-file':
        return await importFileCommand(app, flags, (name) => need(flags, name));
      case 'set-limits': {
        const org = await orgs.setLimits(need(flags, 'org'), {
          perSecond: optInt(flags, 'per-second'),
          perMinute: optInt(flags, 'per-minute'),
          perHour: optInt(flags, 'per-hour'),
          perDay: optInt(flags, 'per-day'),
          perMonth: optInt(flags, 'per-month'),
        });
        return {
          organization: {
            id: org.id,
            limits: {
              perSecond: org.limitPerSecond,
              perMinute: org.limitPerMinute,
              perHour: org.limitPerHour,
              perDay: org.limitPerDay,
              perMonth: org.limitPerMonth,
            },
          },
        };
      }
    }
    throw new Error('unreachable');
  } finally {
    await app.close();
  }
}

/** Entry used by scripts/admin.js: one JSON object on stdout, or an error object on stderr and exit 1. */
export function cliMain(argv: string[]): void {
  runAdmin(argv).then(
    (out) => {
      process.stdout.write(JSON.stringify(out) + '\n');
      process.exit(0);
    },
    (err: unknown) => {
      const body =
        err instanceof ValidationFailedError
          ? { error: err.message, code: err.code, errors: err.errors }
          : err instanceof DomainError
            ? { error: err.message, code: err.code }
            : err instanceof ConfigError
              ? { error: err.message }
              : { error: (err as Error).message };
      process.stderr.write(JSON.stringify(body) + '\n');
      process.exit(1);
    },
  );
}
