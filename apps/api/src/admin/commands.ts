// Every admin CLI command, in the order the tool's help lists them. A new command is one module
// (see admin-command.ts) added here.
import { AdminCommand } from './admin-command';
import { createKeyCommand } from './create-key.command';
import { createOrgCommand } from './create-org.command';
import { createUserCommand } from './create-user.command';
import { addDomainCommand, listDomainsCommand, verifyDomainCommand } from './domains.command';
import { importFileAdminCommand } from './import-file.command';
import { migrateCommand } from './migrate.command';
import { operatorMailCommand } from './operator-mail.command';
import { addProviderCommand, listProvidersCommand } from './providers.command';
import { revokeKeyCommand } from './revoke-key.command';
import { rotateKeysCommand } from './rotate-keys.command';
import { setLimitsCommand } from './set-limits.command';
import { unlockLoginCommand } from './unlock-login.command';

export const ADMIN_COMMANDS: AdminCommand[] = [
  migrateCommand,
  createOrgCommand,
  createKeyCommand,
  revokeKeyCommand,
  createUserCommand,
  unlockLoginCommand,
  setLimitsCommand,
  rotateKeysCommand,
  importFileAdminCommand,
  addDomainCommand,
  verifyDomainCommand,
  listDomainsCommand,
  addProviderCommand,
  listProvidersCommand,
  operatorMailCommand,
];
