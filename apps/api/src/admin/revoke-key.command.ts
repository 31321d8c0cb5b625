// `mp-admin revoke-key`: ends an API key at once (the API and the relay refuse it from then on).
import { ApiKeyService } from '@app/domain';
import { AdminCommand, need } from './admin-command';

export const revokeKeyCommand: AdminCommand = {
  name: 'revoke-key',
  summary: 'revoke an API key',
  description:
    'Revokes an API key: every request with it is refused from now on, SMTP sessions too.',
  options: {
    id: {
      type: 'string',
      value: 'ID',
      description: 'the key id (not its value)',
      required: true,
      id: true,
    },
  },
  examples: ['mp-admin revoke-key --id $KEY_ID --json'],
  async run({ app }, flags) {
    const key = await app.get(ApiKeyService).revokeById(need(flags, 'id'));
    return { apiKey: { id: key.id, revokedAt: key.revokedAt } };
  },
};
