// `mp-admin unlock-login`: ends a login lock early (an account's failure window, an IP's, or both).
import { LoginService, ValidationFailedError } from '@app/domain';
import { AdminCommand, opt } from './admin-command';

export const unlockLoginCommand: AdminCommand = {
  name: 'unlock-login',
  summary: 'end a login lock early, for an account, an IP address or both',
  description:
    'After repeated failed sign-ins an account or a client IP address is locked for a while. ' +
    'This ends the lock now. Give --email, --ip or both.',
  options: {
    email: { type: 'string', value: 'EMAIL', description: "the account's email" },
    ip: { type: 'string', value: 'ADDRESS', description: "the client's IP address" },
  },
  examples: [
    'mp-admin unlock-login --email ana@acme.test',
    'mp-admin unlock-login --ip 203.0.113.7',
  ],
  async run({ app }, flags) {
    const email = opt(flags, 'email');
    const ip = opt(flags, 'ip');
    if (email === undefined && ip === undefined) {
      throw ValidationFailedError.field('ip', 'required', 'give --email, --ip or both');
    }
    await app.get(LoginService).unlock({ email, ip });
    return { unlocked: { email: email ?? null, ip: ip ?? null } };
  },
};
