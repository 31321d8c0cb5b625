// Organizations read once per process and kept until PostgreSQL says they changed.
import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { OrgId } from '../common/org-id';
import { NotifiedCache } from '../database/notified-cache';
import { Organization } from './organization.entity';
import { OrganizationService } from './organization.service';

/*
 * The row trigger of the tenancy baseline migration NOTIFYs `organization_changed` with the id on
 * every committed UPDATE or DELETE (database/notified-cache.ts). Every send is admitted against
 * its organization (the send API, the SMTP relay's MAIL FROM, campaign fan-out, every channel):
 * one query per send becomes none.
 */
export const ORGANIZATION_CHANGED_CHANNEL = 'organization_changed';
/** Entries kept at most; the oldest go first (Map order). */
const MAX_ENTRIES = 10_000;
/** A safety net only: entries are re-read after this long even without a notification. */
const MAX_AGE_MS = 10 * 60_000;

@Injectable()
export class OrganizationCache implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly cache: NotifiedCache<Organization, OrgId>;

  constructor(@InjectDataSource() ds: DataSource, organizations: OrganizationService) {
    this.cache = new NotifiedCache({
      connectionString: (ds.options as { url?: string }).url,
      channel: ORGANIZATION_CHANGED_CHANNEL,
      load: (id) => organizations.get(id),
      logger: new Logger(OrganizationCache.name),
      maxEntries: MAX_ENTRIES,
      maxAgeMs: MAX_AGE_MS,
    });
    // A change made in this process is seen by its next read, not a notification later.
    organizations.onChange((id) => this.cache.forget(id));
  }

  onApplicationBootstrap(): Promise<void> {
    return this.cache.start();
  }

  onApplicationShutdown(): Promise<void> {
    return this.cache.stop();
  }

  /** The organization (NotFoundError when there is none), as committed at most a notification ago. */
  get(id: OrgId): Promise<Organization> {
    return this.cache.get(id);
  }
}
