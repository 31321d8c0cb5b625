// The single exit for contact events (§10: contact.created, contact.updated, contact.deleted,
// contact.unsubscribed, push.token_invalidated), through a transactional outbox. A change runs in
// `change(work)`: the events its work raises are written to `contact_event_outbox` in the change's
// own transaction, so a committed change always has its events. Right after the commit the same
// process turns them into webhook deliveries (the data shapes of docs/webhooks.md) and deletes the
// outbox rows, in one transaction. If that fails (a database restart right after the commit, a
// crash), the rows stay and the worker's sweeper (`sweep`) raises them later, retrying with
// backoff until the store answers. A row is raised exactly once: raising it deletes it, and the
// delete is what claims it.
import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { Clock } from '../common/clock';
import { WebhookEvents } from '../webhooks/webhook-events';
import { ContactPush } from './contact-channels.entity';
import { toContactResponse } from './contact-views';
import { ContactsRepository, LOAD_EVERYTHING } from './contacts.repository';
import { inTransaction } from '../database/transaction';

export type ContactEventType =
  | 'contact.created'
  | 'contact.updated'
  | 'contact.deleted'
  | 'contact.unsubscribed'
  | 'push.token_invalidated';

export interface ContactEvent {
  type: ContactEventType;
  organizationId: string;
  contactId: string;
  /** Ids only (list, channel record), never addresses or numbers. */
  refs?: Record<string, string>;
}

/** Raises an event of the change in progress; it is stored when the change's work returns. */
export type RaiseContactEvent = (event: ContactEvent) => void;

/** An outbox row: the event, when it happened and how often raising it failed. */
interface OutboxRow extends ContactEvent {
  id: string;
  occurredAt: Date;
  attempts: number;
}

/**
 * The sweeper leaves a fresh row to the process that committed it for this long, so the two do not
 * race for it in the common case (if they do, the delete still lets only one raise it).
 */
export const CONTACT_EVENT_GRACE_MS = 30_000;

/** Wait before the sweeper's next try of a row that failed `attempts` times: 5 s doubling, ≤ 10 min. */
export function contactEventRetryDelayMs(attempts: number): number {
  return Math.min(5_000 * 2 ** Math.max(0, attempts - 1), 600_000);
}

const OUTBOX_COLUMNS = `id::text AS id, organization_id AS "organizationId", type,
  contact_id AS "contactId", refs, occurred_at AS "occurredAt", attempts`;

@Injectable()
export class ContactEvents {
  private readonly logger = new Logger(ContactEvents.name);

  constructor(
    private readonly webhooks: WebhookEvents,
    private readonly contacts: ContactsRepository,
    @InjectDataSource() private readonly ds: DataSource,
    private readonly clock: Clock,
  ) {}

  /**
   * Runs `work` in one contacts transaction (`inTransaction`: retried whole on a deadlock). The
   * events it raises are stored in that transaction and raised after the commit. A failure to
   * raise them never fails the change: the worker's sweeper raises them later.
   */
  async change<T>(work: (em: EntityManager, raise: RaiseContactEvent) => Promise<T>): Promise<T> {
    let stored: OutboxRow[] = [];
    const result = await inTransaction(this.ds, async (em) => {
      const raised: ContactEvent[] = [];
      const value = await work(em, (event) => raised.push(event));
      stored = await this.store(em, raised);
      return value;
    });
    if (stored.length) {
      try {
        await this.raise(stored);
      } catch (err) {
        this.logger.warn({
          msg: 'could not raise contact events after the commit; the worker sweeper will',
          types: stored.map((e) => e.type),
          err: (err as Error).message,
        });
      }
    }
    return result;
  }

  /**
   * The worker's sweep: raises up to `limit` due outbox rows (left by a process that could not
   * raise them), oldest first. A row that fails again is retried later with a longer wait; it is
   * never dropped. Returns how many were raised.
   */
  async sweep(limit = 100): Promise<number> {
    const due: OutboxRow[] = await this.ds.query(
      `SELECT ${OUTBOX_COLUMNS} FROM contact_event_outbox
        WHERE next_attempt_at <= $1 ORDER BY next_attempt_at, id LIMIT $2`,
      [this.clock.now(), limit],
    );
    let raised = 0;
    for (const row of due) {
      try {
        raised += await this.raise([row]);
      } catch (err) {
        const attempts = row.attempts + 1;
        const message = (err as Error).message;
        await this.ds.query(
          `UPDATE contact_event_outbox
              SET attempts = $2, next_attempt_at = $3, last_error = left($4, 500)
            WHERE id = $1`,
          [
            row.id,
            attempts,
            new Date(this.clock.now().getTime() + contactEventRetryDelayMs(attempts)),
            message,
          ],
        );
        this.logger[attempts >= 5 ? 'error' : 'warn']({
          msg: 'could not raise a contact event; will retry',
          type: row.type,
          contactId: row.contactId,
          attempts,
          err: message,
        });
      }
    }
    return raised;
  }

  private async store(em: EntityManager, events: ContactEvent[]): Promise<OutboxRow[]> {
    if (!events.length) return [];
    const now = this.clock.now();
    return em.query(
      `INSERT INTO contact_event_outbox
              (organization_id, type, contact_id, refs, occurred_at, next_attempt_at)
       SELECT e.organization_id, e.type, e.contact_id, e.refs, $2, $3
         FROM jsonb_to_recordset($1::jsonb)
              AS e(organization_id uuid, type text, contact_id uuid, refs jsonb, ord int)
        ORDER BY e.ord
       RETURNING ${OUTBOX_COLUMNS}`,
      [
        JSON.stringify(
          events.map((e, ord) => ({
            organization_id: e.organizationId,
            type: e.type,
            contact_id: e.contactId,
            refs: e.refs ?? null,
            ord,
          })),
        ),
        now,
        new Date(now.getTime() + CONTACT_EVENT_GRACE_MS),
      ],
    ) as Promise<OutboxRow[]>;
  }

  /**
   * Turns outbox rows into webhook deliveries. Their data is read first (outside the transaction,
   * so it holds no second pooled connection); then one transaction deletes the rows and stores the
   * deliveries of those it deleted: a row another process raised meanwhile is gone and skipped.
   */
  private async raise(rows: OutboxRow[]): Promise<number> {
    const data = await Promise.all(rows.map((row) => this.dataOf(row)));
    return this.ds.transaction(async (em) => {
      // A SELECT over the DELETE: TypeORM returns a DELETE's rows wrapped with its row count.
      const gone: { id: string }[] = await em.query(
        `WITH gone AS (DELETE FROM contact_event_outbox WHERE id = ANY($1::bigint[]) RETURNING id)
         SELECT id::text AS id FROM gone`,
        [rows.map((r) => r.id)],
      );
      const deleted = new Set(gone.map((r) => r.id));
      const events = rows.flatMap((row, i) =>
        deleted.has(row.id) && data[i]
          ? [
              {
                organizationId: row.organizationId,
                type: row.type,
                data: data[i],
                occurredAt: row.occurredAt,
              },
            ]
          : [],
      );
      await this.webhooks.emitManyWithin(em, events);
      return deleted.size;
    });
  }

  private async dataOf(event: ContactEvent): Promise<Record<string, unknown> | null> {
    const { organizationId: orgId, contactId } = event;
    switch (event.type) {
      case 'contact.deleted':
        return { contact: { id: contactId } };
      case 'contact.unsubscribed':
        return { contactId, contactListId: event.refs?.contactList ?? null };
      case 'push.token_invalidated': {
        const id = event.refs?.push;
        const push = id
          ? await this.ds.getRepository(ContactPush).findOneBy({ id, organizationId: orgId })
          : null;
        if (!push) return null;
        return {
          contactId,
          pushNotificationId: push.id,
          platform: push.platform,
          status: push.status,
          reason: 'update',
        };
      }
      default: {
        const [view] = await this.contacts.load(orgId, [contactId], LOAD_EVERYTHING);
        return view ? { contact: toContactResponse(view) } : null;
      }
    }
  }
}
