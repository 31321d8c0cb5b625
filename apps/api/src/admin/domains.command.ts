// `mp-admin add-domain`, `verify-domain` and `list-domains`: the sending-domain routes without
// HTTP, through the same service; each answers the domains as the API does (records included).
import { MAX_PAGE_LIMIT, SendingDomainService, ValidationFailedError } from '@app/domain';
import { toSendingDomainResponse } from '../sending-domains/sending-domain.response';
import { AdminCommand, AdminOption, Flags, need, optInt, organizationId } from './admin-command';

const ORG: AdminOption = {
  type: 'string',
  value: 'ID',
  description: 'the organization id',
  required: true,
  id: true,
};

/** A whole number in 1..max, or the fallback when the option was not given. */
function inRange(flags: Flags, name: string, fallback: number, max: number): number {
  const v = optInt(flags, name) ?? fallback;
  if (v < 1 || v > max) {
    throw ValidationFailedError.field(name, 'max', `--${name} must be between 1 and ${max}`);
  }
  return v;
}

export const addDomainCommand: AdminCommand = {
  name: 'add-domain',
  summary: 'add a sending domain and print the DNS records to publish',
  description:
    'Adds a sending domain to an organization with a new DKIM key, and prints the records to ' +
    'publish (DKIM, return path, SPF, DMARC). Publish them, then run verify-domain.',
  options: {
    org: ORG,
    name: {
      type: 'string',
      value: 'NAME',
      description: 'the domain, e.g. example.com',
      required: true,
    },
  },
  examples: ['mp-admin add-domain --org $ORG_ID --name example.com --json'],
  async run({ app }, flags) {
    const domain = await app
      .get(SendingDomainService)
      .create(await organizationId(app, flags), { name: need(flags, 'name') });
    return { sendingDomain: toSendingDomainResponse(domain) };
  },
};

export const verifyDomainCommand: AdminCommand = {
  name: 'verify-domain',
  summary: "check a sending domain's DNS records now",
  description:
    'Looks up the DNS records of a sending domain now and prints each record with its status; ' +
    'the domain is verified once every required record matches.',
  options: {
    org: ORG,
    id: {
      type: 'string',
      value: 'ID',
      description: 'the sending domain id',
      required: true,
      id: true,
    },
  },
  examples: ['mp-admin verify-domain --org $ORG_ID --id $DOMAIN_ID --json'],
  async run({ app }, flags) {
    const domain = await app
      .get(SendingDomainService)
      .verify(await organizationId(app, flags), need(flags, 'id'));
    return { sendingDomain: toSendingDomainResponse(domain) };
  },
};

export const listDomainsCommand: AdminCommand = {
  name: 'list-domains',
  summary: "list an organization's sending domains",
  options: {
    org: ORG,
    page: { type: 'string', value: 'N', description: 'page number (default 1)' },
    limit: {
      type: 'string',
      value: 'N',
      description: `domains per page (default and most ${MAX_PAGE_LIMIT})`,
    },
  },
  examples: ['mp-admin list-domains --org $ORG_ID --json'],
  async run({ app }, flags) {
    const page = await app.get(SendingDomainService).list(await organizationId(app, flags), {
      page: inRange(flags, 'page', 1, 1_000_000),
      limit: inRange(flags, 'limit', MAX_PAGE_LIMIT, MAX_PAGE_LIMIT),
    });
    return { sendingDomains: page.items.map(toSendingDomainResponse), total: page.total };
  },
};
