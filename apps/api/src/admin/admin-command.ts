// The shape of one admin CLI command (its options, help text and run function) and the helpers
// commands share to read their options. A command is one module; commands.ts lists them.
import { INestApplicationContext } from '@nestjs/common';
import {
  AppConfig,
  asOrgId,
  isUuid,
  OrganizationService,
  OrgId,
  ValidationFailedError,
} from '@app/domain';

export type Flags = Record<string, string | boolean | undefined>;

/** A result under this key is bytes the tool writes to stdout as they are, instead of JSON. */
export const RAW_OUTPUT = Symbol('raw output');

export interface AdminOption {
  type: 'string' | 'boolean';
  /** What the value is, in the usage line: `--org ID`. Absent for booleans. */
  value?: string;
  description: string;
  /** Checked before the command boots (no database needed to report it). */
  required?: boolean;
  /** The value must be a UUID. */
  id?: boolean;
}

export interface AdminContext {
  app: INestApplicationContext;
  config: AppConfig;
}

export interface AdminCommand {
  name: string;
  /** One line, for the tool's own help. */
  summary: string;
  /** A few sentences, for the command's help. */
  description?: string;
  options: Record<string, AdminOption>;
  examples: string[];
  run(ctx: AdminContext, flags: Flags): Promise<Record<string, unknown>>;
}

/** A string option's value; `ValidationFailedError` when it is absent or empty. */
export function need(flags: Flags, name: string): string {
  const v = flags[name];
  if (typeof v !== 'string' || !v)
    throw ValidationFailedError.field(name, 'required', `--${name} is required`);
  return v;
}

/** A string option's value, or undefined when it was not given. */
export function opt(flags: Flags, name: string): string | undefined {
  return flags[name] === undefined ? undefined : need(flags, name);
}

/** A whole number, or undefined when the option was not given. */
export function optInt(flags: Flags, name: string): number | undefined {
  const v = opt(flags, name);
  if (v === undefined) return undefined;
  if (!/^\d+$/.test(v)) {
    throw ValidationFailedError.field(name, 'type', `--${name} must be a whole number, got "${v}"`);
  }
  return Number(v);
}

export function oneOf<T extends string>(
  flags: Flags,
  name: string,
  allowed: readonly T[],
  fallback?: T,
): T {
  const v = opt(flags, name) ?? fallback;
  if (!v || !allowed.includes(v as T)) {
    throw ValidationFailedError.field(
      name,
      'enum',
      `--${name} must be one of ${allowed.join(', ')}${v ? `, got "${v}"` : ''}`,
    );
  }
  return v as T;
}

/** Checks what can be checked without the database (required options, ids), all at once. */
export function checkOptions(command: AdminCommand, flags: Flags): void {
  const errors: ValidationFailedError['errors'] = [];
  for (const [name, option] of Object.entries(command.options)) {
    const v = flags[name];
    if (option.required && (typeof v !== 'string' || !v)) {
      errors.push({ field: name, rule: 'required', message: `--${name} is required` });
    } else if (option.id && v !== undefined && !isUuid(v)) {
      errors.push({
        field: name,
        rule: 'uuid',
        message: `--${name} must be an id (a UUID), got "${v}"`,
      });
    }
  }
  if (errors.length) throw new ValidationFailedError(errors);
}

/**
 * The --org option as the operator gave it (a UUID, checked with the other options): the
 * operator's command line is a trusted source of organization ids. The service it is passed to
 * answers 404 when there is no such organization.
 */
export function orgFlag(flags: Flags): OrgId {
  return asOrgId(need(flags, 'org'));
}

/** The --org option's organization id, once it is known to exist (`NotFoundError` otherwise). */
export async function organizationId(app: INestApplicationContext, flags: Flags): Promise<OrgId> {
  return (await app.get(OrganizationService).get(orgFlag(flags))).id;
}
