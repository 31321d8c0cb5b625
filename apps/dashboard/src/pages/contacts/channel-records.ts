// A contact's channel records as the rows of its Channels table: what each status means for
// sending (an opted-out number, an expired push token get nothing) and when the record was last
// used, where the API records it (push: last sent; WhatsApp: last seen; Telegram: last active).
import type { components } from '../../api/schema';
import type { Contact } from '../../api/types';
import { formatDateTime } from '../../lib/format';

type Schemas = components['schemas'];
type ContactEmail = Schemas['ContactEmailResponse'];
/** A channel record other than email. */
type ChannelRecord =
  | Schemas['ContactSmsResponse']
  | Schemas['ContactWhatsappResponse']
  | Schemas['ContactTelegramResponse']
  | Schemas['ContactImessageResponse']
  | Schemas['ContactPushResponse'];

export interface ChannelRow {
  channel: string;
  id: string;
  value: string;
  status: string;
  /** What the status means, with its time when the API gives one. */
  note: string | null;
  lastUse: { at: string; what: string } | null;
  isPrimary: boolean;
  createdAt: string;
}

type RecordStatus = (ChannelRecord | ContactEmail)['status'];

/** Statuses with which nothing is sent on the channel (an inactive push token too: see its note). */
const BLOCKING = new Set<RecordStatus>([
  'bounced',
  'complained',
  'suppressed',
  'opted_out',
  'invalid',
  'blocked',
  'expired',
]);

export function statusColor(status: string): string {
  if (BLOCKING.has(status as RecordStatus)) return 'red';
  return status === 'verified' || status === 'active' ? 'green' : 'gray';
}

const when = (iso: string | null | undefined) => (iso ? ` ${formatDateTime(iso)}` : '');

function emailNote(e: ContactEmail): string | null {
  switch (e.status) {
    case 'verified':
      return e.verifiedAt ? `Verified${when(e.verifiedAt)}` : null;
    case 'bounced':
      return `Bounced${when(e.lastBouncedAt)}: no email is sent`;
    case 'complained':
      return `Marked as spam${when(e.lastComplainedAt)}: no email is sent`;
    case 'suppressed':
      return 'Suppressed: no email is sent';
    default:
      return null;
  }
}

/** `what` names the messages of the channel (“SMS”, “push”) in the notes. */
function recordNote(r: ChannelRecord, what: string): string | null {
  switch (r.status) {
    case 'verified':
      return r.verifiedAt ? `Verified${when(r.verifiedAt)}` : null;
    case 'opted_out':
      return `Opted out${when(r.optedOutAt)}: no ${what} is sent`;
    case 'invalid':
      return `Not a reachable address: no ${what} is sent`;
    case 'blocked':
      return `Blocked: no ${what} is sent`;
    case 'expired':
      return `The device token no longer works: no ${what} is sent`;
    case 'inactive':
      return what === 'push' ? 'Inactive: no push is sent' : null;
    case 'active':
      return 'expiresAt' in r && r.expiresAt ? `Token expires${when(r.expiresAt)}` : null;
    default:
      return null;
  }
}

function row(
  channel: string,
  what: string,
  r: ChannelRecord,
  value: string,
  lastUse: ChannelRow['lastUse'],
): ChannelRow {
  return {
    channel,
    id: r.id,
    value,
    status: r.status,
    note: recordNote(r, what),
    lastUse,
    isPrimary: r.isPrimary,
    createdAt: r.createdAt,
  };
}

const used = (at: string | null | undefined, what: string) => (at ? { at, what } : null);

export function channelRows(c: Contact): ChannelRow[] {
  return [
    ...(c.emails ?? []).map((e) => ({
      channel: 'Email',
      id: e.id,
      value: e.email,
      status: e.status,
      note: emailNote(e),
      lastUse: null,
      isPrimary: e.isPrimary,
      createdAt: e.createdAt,
    })),
    ...(c.smsNumbers ?? []).map((r) => row('SMS', 'SMS', r, r.phoneNumber ?? '—', null)),
    ...(c.whatsappAccounts ?? []).map((r) =>
      row('WhatsApp', 'message', r, r.phoneNumber ?? '—', used(r.lastSeenAt, 'last seen')),
    ),
    ...(c.telegramAccounts ?? []).map((r) =>
      row(
        'Telegram',
        'message',
        r,
        [r.phoneNumber, r.username && `@${r.username.replace(/^@/, '')}`]
          .filter(Boolean)
          .join(' · ') || '—',
        used(r.lastActiveAt, 'last active'),
      ),
    ),
    ...(c.imessageAccounts ?? []).map((r) =>
      row('iMessage', 'message', r, r.appleId ?? r.phoneNumber ?? '—', null),
    ),
    ...(c.pushNotifications ?? []).map((r) =>
      row(
        `Push (${r.platform ?? 'device'})`,
        'push',
        r,
        `${(r.deviceToken ?? '').slice(0, 16)}…`,
        used(r.lastUsedAt, 'last push sent'),
      ),
    ),
  ];
}
