// Engagement events for the other areas (§8, §14): an unsubscribe or a complaint noted on the
// message it came from. The events live in the engagement store (engagement.store.ts), which may
// be another database: a caller decides what its outage means for it.
import { Injectable } from '@nestjs/common';
import type { OrgId } from '../../common/org-id';
import { EngagementEventInput, EngagementStore } from './engagement.store';

@Injectable()
export class EngagementService {
  constructor(private readonly store: EngagementStore) {}

  /** Records one event of the organization's message. Throws when the store is unavailable. */
  record(orgId: OrgId, event: EngagementEventInput): Promise<void> {
    return this.store.record(orgId, event);
  }
}
