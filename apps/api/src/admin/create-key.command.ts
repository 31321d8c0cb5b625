// `mp-admin create-key`: an API key with chosen scopes and request limits.
import { ApiKeyService } from '@app/domain';
import { AdminCommand, need, opt, optInt, organizationId } from './admin-command';

export const createKeyCommand: AdminCommand = {
  name: 'create-key',
  summary: 'create an API key with chosen scopes and request limits',
  description:
    'Creates an API key for an organization. Its value is shown once, in this output; only a ' +
    'hash is stored. Without --per-minute the key gets the default (300 requests a minute); ' +
    'without --per-day it has no daily limit.',
  options: {
    org: { type: 'string', value: 'ID', description: 'organization id', required: true, id: true },
    name: { type: 'string', value: 'NAME', description: 'a label for the key', required: true },
    scopes: {
      type: 'string',
      value: 'SCOPES',
      description: 'comma list of scopes (e.g. contacts:read,messages:send), or all',
      required: true,
    },
    'per-minute': { type: 'string', value: 'N', description: 'requests a minute' },
    'per-day': { type: 'string', value: 'N|unlimited', description: 'requests a UTC day' },
  },
  examples: [
    'mp-admin create-key --org $ORG --name reporting --scopes contacts:read,analytics:read --per-minute 120 --json',
  ],
  async run({ app }, flags) {
    const scopes = need(flags, 'scopes');
    const perDay = opt(flags, 'per-day');
    const { key, value } = await app.get(ApiKeyService).create(await organizationId(app, flags), {
      name: need(flags, 'name'),
      scopes: scopes === 'all' ? 'all' : scopes.split(',').map((s) => s.trim()),
      rateLimitPerMinute: optInt(flags, 'per-minute'),
      rateLimitPerDay: perDay === 'unlimited' ? null : optInt(flags, 'per-day'),
    });
    return {
      apiKey: { id: key.id, organizationId: key.organizationId, key: value, scopes: key.scopes },
    };
  },
};
