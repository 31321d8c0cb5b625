// `mp-admin set-limits`: an organization's sending-limit overrides (§8): a number, the plan's
// default, or unlimited, per window; and the number of sending domains it may hold (§16).
import {
  OrganizationService,
  resolveSendingLimits,
  sendingDomainLimit,
  SENDING_WINDOWS,
  SendingWindow,
  UNLIMITED_SENDING_LIMIT,
  ValidationFailedError,
} from '@app/domain';
import { AdminCommand, Flags, opt, orgFlag } from './admin-command';

const FLAG: Record<SendingWindow, string> = {
  perSecond: 'per-second',
  perMinute: 'per-minute',
  perHour: 'per-hour',
  perDay: 'per-day',
  perMonth: 'per-month',
};

/** `default` → null (the plan's value), `unlimited` → the never-reached limit, else a count. */
function limitFlag(flags: Flags, name: string): number | null | undefined {
  const v = opt(flags, name);
  if (v === undefined) return undefined;
  if (v === 'default') return null;
  if (v === 'unlimited') return UNLIMITED_SENDING_LIMIT;
  if (!/^\d+$/.test(v)) {
    throw ValidationFailedError.field(
      name,
      'type',
      `--${name} must be a whole number, default or unlimited, got "${v}"`,
    );
  }
  return Number(v);
}

/** `default` → null (the plan's number), else a count. */
function domainsFlag(flags: Flags): number | null | undefined {
  const v = opt(flags, 'sending-domains');
  if (v === undefined) return undefined;
  if (v === 'default') return null;
  if (!/^\d{1,9}$/.test(v)) {
    throw ValidationFailedError.field(
      'sending-domains',
      'type',
      `--sending-domains must be a whole number or default, got "${v}"`,
    );
  }
  return Number(v);
}

const shown = (n: number | null): number | string =>
  n === null ? 'default' : n >= UNLIMITED_SENDING_LIMIT ? 'unlimited' : n;

export const setLimitsCommand: AdminCommand = {
  name: 'set-limits',
  summary: "set an organization's sending limits (a number, default or unlimited)",
  description:
    'Overrides the sending limits of an organization, per window. Each value is a whole number ' +
    "(0 stops sending), `default` (back to the plan's limit) or `unlimited`. Windows not given " +
    'keep their current setting. perSecond, perMinute and perHour count send requests; perDay ' +
    'and perMonth count recipients. --sending-domains sets how many sending domains the ' +
    "organization may hold (a whole number, or `default` for the plan's number). The output " +
    'shows the overrides and the limits in effect.',
  options: {
    org: { type: 'string', value: 'ID', description: 'organization id', required: true, id: true },
    ...Object.fromEntries(
      SENDING_WINDOWS.map((w) => [
        FLAG[w],
        {
          type: 'string',
          value: 'LIMIT',
          description: `${w}: a whole number, default or unlimited`,
        },
      ]),
    ),
    'sending-domains': {
      type: 'string',
      value: 'N',
      description: 'sending domains the organization may hold: a whole number or default',
    },
  },
  examples: [
    'mp-admin set-limits --org $ORG --per-second 5 --per-minute 100 --per-day default',
    'mp-admin set-limits --org $ORG --per-month unlimited --json',
    'mp-admin set-limits --org $ORG --sending-domains 10',
  ],
  async run({ app }, flags) {
    const overrides = Object.fromEntries(
      SENDING_WINDOWS.map((w) => [w, limitFlag(flags, FLAG[w])]),
    ) as Record<SendingWindow, number | null | undefined>;
    const organizations = app.get(OrganizationService);
    const maxSendingDomains = domainsFlag(flags);
    if (maxSendingDomains !== undefined) {
      await organizations.update(orgFlag(flags), { maxSendingDomains });
    }
    const org = await organizations.setLimits(orgFlag(flags), overrides);
    const stored: Record<SendingWindow, number | null> = {
      perSecond: org.limitPerSecond,
      perMinute: org.limitPerMinute,
      perHour: org.limitPerHour,
      perDay: org.limitPerDay,
      perMonth: org.limitPerMonth,
    };
    const effective = resolveSendingLimits(org);
    return {
      organization: {
        id: org.id,
        plan: org.plan,
        limits: {
          ...Object.fromEntries(SENDING_WINDOWS.map((w) => [w, shown(stored[w])])),
          sendingDomains: org.maxSendingDomains ?? 'default',
        },
        effective: {
          ...Object.fromEntries(SENDING_WINDOWS.map((w) => [w, shown(effective[w])])),
          sendingDomains: sendingDomainLimit(org),
        },
      },
    };
  },
};
