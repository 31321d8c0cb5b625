// `mp-admin unlock-login`: ends login limits early (an account's ceiling and delays, an IP's window).
import { LoginService, ValidationFailedError } from '@app/domain';
import { AdminCommand, opt } from './admin-command';

export const unlockLoginCommand: AdminCommand = {
  name: 'unlock-login',
  summary: 'end a login lock early, for an account, an IP address or both',
  description:
    'After repeated failed sign-ins a client IP address is refused for a while, an address is ' +
    'made to wait before each further try at one account, and an account refuses addresses it ' +
    "never signed in from. --email ends the account's ceiling and every wait at it; --ip ends the " +
    "address's failure window. Give --email, --ip or both.",
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
