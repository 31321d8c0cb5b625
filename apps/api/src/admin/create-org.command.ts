// `mp-admin create-org`: a new organization (with its default list), optionally with an API key.
import { ApiKeyService, OrganizationService, Plan, PLANS } from '@app/domain';
import { AdminCommand, need, oneOf } from './admin-command';

export const createOrgCommand: AdminCommand = {
  name: 'create-org',
  summary: 'create an organization, optionally with an all-scope API key',
  description:
    'Creates an organization and its default contact list. With --with-key it also creates an ' +
    'API key with every scope; the key is shown once, in this output, and never again.',
  options: {
    name: { type: 'string', value: 'NAME', description: 'the organization name', required: true },
    plan: {
      type: 'string',
      value: 'PLAN',
      description: `${PLANS.join(', ')} (default free); sets the sending limits`,
    },
    'with-key': { type: 'boolean', description: 'also create an API key with every scope' },
  },
  examples: [
    'mp-admin create-org --name Acme --plan pro --with-key --json',
    'KEY=$(npx mp-admin create-org --name Acme --with-key --json | node -pe \'JSON.parse(require("fs").readFileSync(0)).apiKey.key\')',
  ],
  async run({ app }, flags) {
    const org = await app.get(OrganizationService).create({
      name: need(flags, 'name'),
      plan: oneOf<Plan>(flags, 'plan', PLANS, 'free'),
    });
    const out: Record<string, unknown> = {
      organization: { id: org.id, name: org.name, plan: org.plan },
    };
    if (flags['with-key']) {
      const { key, value } = await app
        .get(ApiKeyService)
        .create(org.id, { name: 'admin', scopes: 'all' });
      out.apiKey = { id: key.id, key: value, scopes: key.scopes };
    }
    return out;
  },
};
