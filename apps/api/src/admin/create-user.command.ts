// `mp-admin create-user`: a dashboard / API user, member of one organization with a role.
import { Role, ROLES, UserService } from '@app/domain';
import { AdminCommand, need, oneOf } from './admin-command';

export const createUserCommand: AdminCommand = {
  name: 'create-user',
  summary: 'create a user who can sign in to the dashboard and the API',
  description:
    'Creates a user as a member of an organization with a role. The password needs at least 12 ' +
    'characters. A user who exists already (same email) becomes a member of this organization ' +
    'too, with their password unchanged. Users sign in at /dashboard or POST /api/v1/auth/login.',
  options: {
    email: { type: 'string', value: 'EMAIL', description: 'the sign-in email', required: true },
    password: {
      type: 'string',
      value: 'PASSWORD',
      description: 'at least 12 characters',
      required: true,
    },
    org: { type: 'string', value: 'ID', description: 'organization id', required: true, id: true },
    role: { type: 'string', value: 'ROLE', description: `${ROLES.join(', ')} (default member)` },
  },
  examples: [
    "mp-admin create-user --email ana@acme.test --password 'a long passphrase' --org $ORG --role owner",
  ],
  async run({ app }, flags) {
    const user = await app.get(UserService).createUser({
      email: need(flags, 'email'),
      password: need(flags, 'password'),
      organizationId: need(flags, 'org'),
      role: oneOf<Role>(flags, 'role', ROLES, 'member'),
    });
    return { user: { id: user.id, email: user.email } };
  },
};
