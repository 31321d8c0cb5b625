// `mp-admin rotate-keys`: re-encrypts every value at rest written under a key of ENCRYPTION_KEYS_OLD.
import { KeyRotationSweeper } from '@app/domain';
import { AdminCommand, optInt, organizationId } from './admin-command';

export const rotateKeysCommand: AdminCommand = {
  name: 'rotate-keys',
  summary: 're-encrypt every encrypted value at rest with the current ENCRYPTION_KEY',
  description:
    'Re-encrypts every value written under a key of ENCRYPTION_KEYS_OLD with ENCRYPTION_KEY and ' +
    'recomputes its blind index, in batches: contacts and their channels, message contents, ' +
    'recipients and raw messages, webhook payloads, secrets and headers, DKIM private keys and ' +
    'inbound mail. Prints the rows rewritten per table and the values per column. Safe while ' +
    'the platform runs and safe to run again. Afterwards the old key can be removed from ' +
    'ENCRYPTION_KEYS_OLD. With --org, mail kept for the operator (no organization) is left out.',
  options: {
    org: { type: 'string', value: 'ID', description: "only this organization's rows", id: true },
    'batch-size': { type: 'string', value: 'N', description: 'rows per batch (default 1000)' },
  },
  examples: ['ENCRYPTION_KEY=$NEW ENCRYPTION_KEYS_OLD=$OLD mp-admin rotate-keys --json'],
  async run({ app }, flags) {
    const result = await app.get(KeyRotationSweeper).rotate({
      batchSize: optInt(flags, 'batch-size') ?? 1000,
      organizationId: flags.org === undefined ? undefined : await organizationId(app, flags),
    });
    return { rotation: result };
  },
};
