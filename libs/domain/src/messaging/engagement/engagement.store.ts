// Engagement events in their own store (§8): a separate connection, to ENGAGEMENT_DATABASE_URL or
// by default the main database, so an outage there never takes the message log down with it.
// The connection opens lazily and is retried on the next use after a failure. The table comes
// from the engagement baseline migration (database/migrations), applied with the others.
import { Inject, Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { AppConfig } from '../../config/app-config';
import { APP_CONFIG } from '../../config/config.module';
import { query, sql } from '../../database/sql';

export const ENGAGEMENT_EVENT_TYPES = ['opened', 'clicked', 'unsubscribed', 'complained'] as const;
export type EngagementEventType = (typeof ENGAGEMENT_EVENT_TYPES)[number];

export interface EngagementEventInput {
  organizationId: string;
  messageId: string;
  recipientIndex: number;
  type: EngagementEventType;
  url?: string | null;
  userAgent?: string | null;
  remoteIp?: string | null;
  occurredAt: Date;
}

export interface EngagementEventRow {
  recipientIndex: number;
  type: EngagementEventType;
  url: string | null;
  userAgent: string | null;
  remoteIp: string | null;
  occurredAt: Date;
}

@Injectable()
export class EngagementStore implements OnModuleDestroy {
  private readonly logger = new Logger(EngagementStore.name);
  private opening?: Promise<DataSource>;
  private ds?: DataSource;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @InjectDataSource() private readonly main: DataSource,
  ) {}

  private url(): string {
    return this.config.engagementDatabaseUrl ?? (this.main.options as { url: string }).url;
  }

  private connection(): Promise<DataSource> {
    if (!this.opening) {
      this.opening = this.open().catch((err: Error) => {
        this.opening = undefined;
        throw err;
      });
    }
    return this.opening;
  }

  private async open(): Promise<DataSource> {
    const ds = new DataSource({
      type: 'postgres',
      url: this.url(),
      synchronize: false,
      logging: false,
      // Short timeouts: a hung engagement store must not hold up the message endpoint.
      extra: {
        max: 5,
        connectionTimeoutMillis: 2000,
        query_timeout: 3000,
        statement_timeout: 3000,
      },
    });
    await ds.initialize();
    this.ds = ds;
    return ds;
  }

  async record(e: EngagementEventInput): Promise<void> {
    const ds = await this.connection();
    await query(
      ds,
      sql`INSERT INTO engagement_events (organization_id, message_id, recipient_idx, type, url,
            user_agent, remote_ip, occurred_at)
          VALUES (${e.organizationId}::uuid, ${e.messageId}::uuid, ${e.recipientIndex}, ${e.type},
            ${e.url ?? null}, ${e.userAgent ?? null}, ${e.remoteIp ?? null},
            ${e.occurredAt}::timestamptz)`,
    );
  }

  /** Events of one message, oldest first. Throws when the store is unavailable. */
  async forMessage(
    organizationId: string,
    messageId: string,
    limit: number,
  ): Promise<EngagementEventRow[]> {
    const ds = await this.connection();
    const rows = await query<{
      recipient_idx: number;
      type: EngagementEventType;
      url: string | null;
      user_agent: string | null;
      remote_ip: string | null;
      occurred_at: Date;
    }>(
      ds,
      sql`SELECT recipient_idx, type, url, user_agent, remote_ip, occurred_at
            FROM engagement_events
           WHERE organization_id = ${organizationId}::uuid AND message_id = ${messageId}::uuid
           ORDER BY occurred_at, id
           LIMIT ${limit}`,
    );
    return rows.map((r) => ({
      recipientIndex: r.recipient_idx,
      type: r.type,
      url: r.url,
      userAgent: r.user_agent,
      remoteIp: r.remote_ip,
      occurredAt: r.occurred_at,
    }));
  }

  /** The retention purge, across organizations: removes the events of purged messages. */
  async deleteForMessages(messageIds: string[]): Promise<number> {
    if (!messageIds.length) return 0;
    const ds = await this.connection();
    const [{ n }] = await query<{ n: number }>(
      ds,
      sql`WITH gone AS (
            DELETE FROM engagement_events WHERE message_id = ANY(${messageIds}::uuid[])
            RETURNING 1)
          SELECT count(*)::int AS n FROM gone`,
    );
    return n;
  }

  async onModuleDestroy(): Promise<void> {
    const ds = this.ds;
    this.ds = undefined;
    this.opening = undefined;
    if (ds?.isInitialized)
      await ds
        .destroy()
        .catch((e: Error) =>
          this.logger.warn({ msg: 'engagement store close failed', err: e.message }),
        );
  }
}
