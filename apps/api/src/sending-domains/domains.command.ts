// `npm run admin -- add-domain --org ID --name N`, `verify-domain --org ID --id ID` and
// `list-domains --org ID [--page N] [--limit N]`: the sending-domain routes without HTTP, through
// the same service; each answers the domains as the API does (records to publish included).
import { INestApplicationContext } from '@nestjs/common';
import { MAX_PAGE_LIMIT, SendingDomainService, ValidationFailedError } from '@app/domain';
import { toSendingDomainResponse } from './sending-domains.dto';

export const DOMAIN_COMMANDS = ['add-domain', 'verify-domain', 'list-domains'] as const;
export type DomainCommand = (typeof DOMAIN_COMMANDS)[number];

export const DOMAIN_OPTIONS = {
  page: { type: 'string' },
  limit: { type: 'string' },
} as const;

type Flags = Record<string, string | boolean | undefined>;

function positive(flags: Flags, name: string, fallback: number, max: number): number {
  const v = flags[name];
  if (v === undefined) return fallback;
  if (typeof v !== 'string' || !/^\d+$/.test(v) || Number(v) < 1 || Number(v) > max) {
    throw ValidationFailedError.field(name, 'type', `--${name} must be a whole number 1..${max}`);
  }
  return Number(v);
}

export async function domainCommand(
  app: INestApplicationContext,
  command: DomainCommand,
  flags: Flags,
  need: (name: string) => string,
): Promise<Record<string, unknown>> {
  const domains = app.get(SendingDomainService);
  switch (command) {
    case 'add-domain':
      return {
        sendingDomain: toSendingDomainResponse(
          await domains.create(need('org'), { name: need('name') }),
        ),
      };
    case 'verify-domain':
      return {
        sendingDomain: toSendingDomainResponse(await domains.verify(need('org'), need('id'))),
      };
    case 'list-domains': {
      const page = await domains.list(need('org'), {
        page: positive(flags, 'page', 1, 1_000_000),
        limit: positive(flags, 'limit', 100, MAX_PAGE_LIMIT),
      });
      return { sendingDomains: page.items.map(toSendingDomainResponse), total: page.total };
    }
  }
}
