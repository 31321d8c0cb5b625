// Organizations read once per process and kept until PostgreSQL says they changed: the row trigger
// of migration 1763700001600 NOTIFYs `organization_changed` with the id on every committed UPDATE
// or DELETE, and a dedicated connection LISTENs. For a hot path that reads the same organization
// for every transaction (the SMTP relay's MAIL FROM), one query per transaction becomes none.
//
// Nothing is served from the cache unless the LISTEN connection is up: while it is down (and
// from the moment it is lost, when the cache is emptied) every get reads the database. A read
// that a notification overtakes is not stored (generation check), so a change committed while
// the read was in flight can never be cached over.
import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import pg from 'pg';
import { DataSource } from 'typeorm';
import { Organization } from './organization.entity';
import { OrganizationService } from './organization.service';

export const ORGANIZATION_CHANGED_CHANNEL = 'organization_changed';
const RECONNECT_MS = 1000;
/** Entries kept at most; the oldest go first (Map order). */
const MAX_ENTRIES = 10_000;
/** A safety net only: entries are re-read after this long even without a notification. */
const MAX_AGE_MS = 10 * 60_000;

@Injectable()
export class OrganizationCache implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(OrganizationCache.name);
  private readonly entries = new Map<string, { org: Organization; at: number }>();
  private generation = 0;
  private listening = false;
  private client?: pg.Client;
  private stopped = false;
  private retry?: NodeJS.Timeout;

  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly organizations: OrganizationService,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.connect();
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.retry);
    this.forgetAll();
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => undefined);
  }

  /** The organization (NotFoundError when there is none), as committed at most a notification ago. */
  async get(id: string): Promise<Organization> {
    const hit = this.entries.get(id);
    if (hit && this.listening && Date.now() - hit.at < MAX_AGE_MS) return hit.org;
    const generation = this.generation;
    const org = await this.organizations.get(id);
    if (this.listening && generation === this.generation) {
      if (this.entries.size >= MAX_ENTRIES) {
        this.entries.delete(this.entries.keys().next().value!);
      }
      this.entries.set(id, { org, at: Date.now() });
    }
    return org;
  }

  private forget(id: string): void {
    this.generation++;
    this.entries.delete(id);
  }

  private forgetAll(): void {
    this.listening = false;
    this.generation++;
    this.entries.clear();
  }

  private async connect(): Promise<void> {
    if (this.stopped) return;
    const options = this.ds.options as { url?: string };
    const client = new pg.Client({ connectionString: options.url });
    client.on('notification', (n) => {
      if (n.channel === ORGANIZATION_CHANGED_CHANNEL && n.payload) this.forget(n.payload);
    });
    const lost = (err?: Error) => {
      if (this.client !== client) return;
      this.client = undefined;
      this.forgetAll();
      client.removeAllListeners('notification');
      void client.end().catch(() => undefined);
      if (this.stopped) return;
      this.logger.warn({ msg: 'organization change listener lost', err: err?.message });
      this.retry = setTimeout(() => void this.connect(), RECONNECT_MS);
    };
    client.on('error', lost);
    client.on('end', () => lost());
    this.client = client;
    try {
      await client.connect();
      await client.query(`LISTEN ${ORGANIZATION_CHANGED_CHANNEL}`);
      if (this.client === client) this.listening = true;
    } catch (err) {
      lost(err as Error);
    }
  }
}
