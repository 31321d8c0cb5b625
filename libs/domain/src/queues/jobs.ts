// The one catalogue of Bull jobs: the queues, and per job its queue, name and payload (ids only,
// never personal data or secrets) with the parser the worker applies when it takes one.
import { isUuid } from '../common/ids';
import { asOrgId, OrgId } from '../common/org-id';

export const QUEUES = {
  imports: 'imports',
  email: 'email',
  campaigns: 'campaigns',
  inbound: 'inbound',
} as const;

export type QueueName = (typeof QUEUES)[keyof typeof QUEUES];

/** One kind of job: where it goes, its name, and its payload's parser (null for anything else). */
export interface JobKind<P> {
  queue: QueueName;
  name: string;
  parse(data: unknown): P | null;
}

/** The payload of a job of this kind. */
export type JobPayload<J> = J extends JobKind<infer P> ? P : never;

/** Parsed UUID fields: the organization's id is an OrgId (a job is enqueued by our own code). */
type Uuids<K extends string> = { [P in K]: P extends 'organizationId' ? OrgId : string };

/** A parser of payloads made of these UUID fields; anything else in the payload is dropped. */
function uuids<K extends string>(...keys: K[]): (data: unknown) => Uuids<K> | null {
  return (data) => {
    if (typeof data !== 'object' || data === null) return null;
    const out = {} as Record<K, string>;
    for (const key of keys) {
      const value = (data as Record<string, unknown>)[key];
      if (!isUuid(value)) return null;
      out[key] = key === 'organizationId' ? asOrgId(value) : value;
    }
    return out as Uuids<K>;
  };
}

/** What a producer enqueues; the parsers answer `organizationId` as an OrgId. */
export interface DeliverEmailJob {
  organizationId: string;
  messageId: string;
}

export interface RunImportJob {
  importId: string;
  organizationId: OrgId;
}

export interface KickCampaignJob {
  campaignId: string;
  organizationId: string;
}

export interface ProcessInboundJob {
  inboundId: string;
}

export const JOBS = {
  /** One delivery run of a committed message; job id `<message id>:<dispatch seq>`. */
  deliverEmail: {
    queue: QUEUES.email,
    name: 'deliver',
    parse: uuids('organizationId', 'messageId'),
  } satisfies JobKind<DeliverEmailJob>,
  /** Runs (or resumes) one import. */
  runImport: {
    queue: QUEUES.imports,
    name: 'import.run',
    parse: uuids('importId', 'organizationId'),
  } satisfies JobKind<RunImportJob>,
  /** Starts the fan-out of a campaign now instead of at the next poll. */
  kickCampaign: {
    queue: QUEUES.campaigns,
    name: 'campaign.kick',
    parse: uuids('campaignId', 'organizationId'),
  } satisfies JobKind<KickCampaignJob>,
  /** Processes received inbound mail (§14) now instead of at the next poll. */
  processInbound: {
    queue: QUEUES.inbound,
    name: 'inbound.process',
    parse: uuids('inboundId'),
  } satisfies JobKind<ProcessInboundJob>,
} as const;
