// Unsubscribing (§14): the one-click POST and the mailto address verify the token, then unsubscribe
// the contact from the campaign's list (every list for a segment campaign or an API send), record
// it once per message with its contact.unsubscribed events in the same transaction, and note an
// `unsubscribed` engagement event. A repeat changes nothing. Complaints unsubscribe from every list
// through `unsubscribeEverywhere`, in their own transaction.
import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { Clock } from '../common/clock';
import type { OrgId } from '../common/org-id';
import { ContactListsService } from '../contacts/contact-lists.service';
import { inTransaction } from '../database/transaction';
import { NotFoundError } from '../errors/domain-errors';
import { Events, NewEvent } from '../events/events.service';
import { EngagementService } from '../messaging/engagement/engagement.service';
import {
  UnsubscribeRepository,
  UnsubscribeSource,
  UnsubscribeTarget,
} from './unsubscribe.repository';
import { UnsubscribeTokens } from './unsubscribe-token';

export type { UnsubscribeSource, UnsubscribeTarget } from './unsubscribe.repository';

/** The membership reason of §14 for a link or address, and for a complaint. */
export type UnsubscribeReason = 'one-click' | 'complaint';

/** Who clicked, for the engagement event (null for mail). */
export interface UnsubscribeClient {
  userAgent?: string | null;
  remoteIp?: string | null;
}

export interface UnsubscribeResult {
  organizationId: OrgId;
  /** False when this message's unsubscribe had been done before and nothing changed now. */
  changed: boolean;
  /** Lists whose membership went subscribed → unsubscribed. */
  listIds: string[];
}

/** contact.unsubscribed events: one per list left (docs/webhooks.md). */
export function unsubscribedEvents(
  contactId: string,
  listIds: (string | null)[],
  reason: UnsubscribeReason,
): NewEvent[] {
  return listIds.map((contactListId) => ({
    type: 'contact.unsubscribed',
    data: { contactId, contactListId, reason },
  }));
}

@Injectable()
export class UnsubscribeService {
  private readonly logger = new Logger(UnsubscribeService.name);

  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly tokens: UnsubscribeTokens,
    private readonly repository: UnsubscribeRepository,
    private readonly lists: ContactListsService,
    private readonly events: Events,
    private readonly engagement: EngagementService,
    private readonly clock: Clock,
  ) {}

  /** What a token unsubscribes; NotFoundError when it does not verify or names nothing. */
  async target(token: string): Promise<UnsubscribeTarget> {
    const jobId = this.tokens.verify(token);
    const target = jobId ? await this.repository.resolve(jobId) : null;
    if (!target) throw new NotFoundError('Unsubscribe link');
    return target;
  }

  /** The one-click POST (RFC 8058) or a mail to the unsubscribe address. Idempotent. */
  async unsubscribe(
    token: string,
    source: UnsubscribeSource,
    client: UnsubscribeClient = {},
  ): Promise<UnsubscribeResult> {
    const target = await this.target(token);
    const org = target.organizationId;
    const now = this.clock.now();
    const result = await inTransaction(this.ds, (em) => this.apply(em, target, source, now));
    this.events.wake();
    this.logger.log({
      msg: 'unsubscribe',
      organizationId: org,
      jobId: target.jobId,
      source,
      changed: result.changed,
      lists: result.listIds.length,
    });
    if (result.first && target.messageId) {
      await this.noteEngagement(org, target.messageId, 'unsubscribed', now, client);
    }
    return { organizationId: org, changed: result.changed, listIds: result.listIds };
  }

  /**
   * A token's unsubscribe in the caller's transaction, with its contact.unsubscribed events; the
   * caller notes the engagement of a `first` one after the commit.
   */
  async apply(
    em: EntityManager,
    target: UnsubscribeTarget,
    source: UnsubscribeSource,
    now: Date,
  ): Promise<{ changed: boolean; listIds: string[]; first: boolean }> {
    const org = target.organizationId;
    const first = await this.repository.record(em, org, target, source, now);
    const listIds = await this.lists.unsubscribeIn(
      em,
      org,
      target.contactId,
      target.listId,
      'one-click',
      now,
    );
    // Unsubscribing from "every list" a contact is on no list of still tells the organization.
    const announced = listIds.length || !first || target.listId ? listIds : [null];
    await this.events.emit(em, org, unsubscribedEvents(target.contactId, announced, 'one-click'));
    return { changed: first || listIds.length > 0, listIds, first };
  }

  /**
   * A complaint's unsubscribe from every list, in the caller's transaction, with its
   * contact.unsubscribed events; answers the lists left.
   */
  async unsubscribeEverywhere(
    em: EntityManager,
    organizationId: OrgId,
    contactId: string,
    at: Date,
  ): Promise<string[]> {
    const listIds = await this.lists.unsubscribeIn(
      em,
      organizationId,
      contactId,
      null,
      'complaint',
      at,
    );
    await this.events.emit(em, organizationId, unsubscribedEvents(contactId, listIds, 'complaint'));
    return listIds;
  }

  /**
   * An engagement event on the message's first recipient, the one its headers were built for.
   * The engagement store may be another database: its outage loses the event, not the change.
   */
  async noteEngagement(
    organizationId: OrgId,
    messageId: string,
    type: 'unsubscribed' | 'complained',
    at: Date,
    client: UnsubscribeClient = {},
    recipientIndex = 0,
  ): Promise<void> {
    try {
      await this.engagement.record(organizationId, {
        messageId,
        recipientIndex,
        type,
        userAgent: client.userAgent ?? null,
        remoteIp: client.remoteIp ?? null,
        occurredAt: at,
      });
    } catch (err) {
      this.logger.warn({
        msg: 'engagement event not stored',
        type,
        organizationId,
        err: (err as Error).message,
      });
    }
  }
}
