// `mp-admin create-user`: a dashboard / API user, member of one organization with a role.
import { Role, ROLES, UserService } from '@app/domain';
import { AdminCommand, need, oneOf, orgFlag } from './admin-command';
import { readPassword } from './password-input';

export const createUserCommand: AdminCommand = {
  name: 'create-user',
  summary: 'create a user who can sign in to the dashboard and the API',
  description:
    'Creates a user as a member of an organization with a role. The password needs at least 12 ' +
    'characters. A user who exists already (same email) becomes a member of this organization ' +
    'too, with their password unchanged. Users sign in at /dashboard or POST /api/v1/auth/login. ' +
    'In a terminal, without --password or --password-stdin, the password is asked for twice, ' +
    'without echo.',
  options: {
    email: { type: 'string', value: 'EMAIL', description: 'the sign-in email', required: true },
    password: {
      type: 'string',
      value: 'PASSWORD',
      description:
        'at least 12 characters; visible to other users of the machine (a warning says so): ' +
        'prefer the prompt or --password-stdin',
    },
    'password-stdin': {
      type: 'boolean',
      description: 'read the password from the first line of stdin',
    },
    org: { type: 'string', value: 'ID', description: 'organization id', required: true, id: true },
    role: { type: 'string', value: 'ROLE', description: `${ROLES.join(', ')} (default member)` },
  },
  examples: [
    'mp-admin create-user --email ana@acme.test --org $ORG --role owner',
    'printf %s\\n "$PASSWORD" | mp-admin create-user --email ana@acme.test --org $ORG --password-stdin',
  ],
  async run({ app }, flags) {
    // A wrong role is reported before anyone types a password.
    const role = oneOf<Role>(flags, 'role', ROLES, 'member');
    const user = await app.get(UserService).createUser({
      email: need(flags, 'email'),
      password: await readPassword(flags),
      organizationId: orgFlag(flags),
      role,
    });
    return { user: { id: user.id, email: user.email } };
  },
};
