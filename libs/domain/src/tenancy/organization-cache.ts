// Organizations read once per process and kept until PostgreSQL says they changed.
import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { PgListener } from '../database/pg-listener';
import { Organization } from './organization.entity';
import { OrganizationService } from './organization.service';

/*
 * The row trigger of the tenancy baseline migration NOTIFYs `organization_changed` with the id on
 * every committed UPDATE or DELETE, and a dedicated connection LISTENs. For a hot path that reads the same organization
 * for every transaction (the SMTP relay's MAIL FROM), one query per transaction becomes none.
 *
 * Nothing is served from the cache unless the LISTEN connection is up: while it is down (and
 * from the moment it is lost, when the cache is emptied) every get reads the database. A read
 * that a notification overtakes is not stored (generation check), so a change committed while
 * the read was in flight can never be cached over.
 */
export const ORGANIZATION_CHANGED_CHANNEL = 'organization_changed';
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
  private readonly listener: PgListener;

  constructor(
    @InjectDataSource() ds: DataSource,
    private readonly organizations: OrganizationService,
  ) {
    this.listener = new PgListener(
      (ds.options as { url?: string }).url,
      ORGANIZATION_CHANGED_CHANNEL,
      {
        notified: (id) => id && this.forget(id),
        up: () => (this.listening = true),
        down: () => this.forgetAll(),
      },
      this.logger,
    );
  }

  async onApplicationBootstrap(): Promise<void> {
    await this.listener.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.listener.stop();
    this.forgetAll();
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
}
