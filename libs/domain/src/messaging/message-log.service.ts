// Reading the message log (spec GET /messages/{jobId}, §8, §12.2): delivery attempts from the log
// store, engagement events from their own store. The two fail differently on purpose: without the
// engagement store the message still answers (no events); without the log store it is a 503.
import { Injectable, Logger } from '@nestjs/common';
import type { OrgId } from '../common/org-id';
import { Page, PageRequest } from '../common/pagination';
import { DomainError, NotFoundError, ServiceUnavailableError } from '../errors/domain-errors';
import { EngagementEventRow, EngagementStore } from './engagement/engagement.store';
import { OrganizationService } from '../tenancy/organization.service';
import { MessageLogRepository } from './message-log.repository';
import type { AttemptRecord, MessageListFilters, MessageSummary } from './message.types';

/** Spec: attempts and events are each capped at 500 rows, oldest first. */
export const MESSAGE_LOG_ROW_CAP = 500;

export interface MessageLogEntry {
  summary: MessageSummary;
  attempts: AttemptRecord[];
  events: EngagementEventRow[];
  retentionDays: number;
}

export interface MessageListEntry {
  summary: MessageSummary;
  retentionDays: number;
}

@Injectable()
export class MessageLogService {
  private readonly logger = new Logger(MessageLogService.name);

  constructor(
    private readonly messages: MessageLogRepository,
    private readonly engagement: EngagementStore,
    private readonly organizations: OrganizationService,
  ) {}

  /** The organization's retention in days (retentionDays of every message). */
  private async retentionDays(orgId: OrgId): Promise<number> {
    return (await this.organizations.get(orgId)).messageRetentionDays;
  }

  /** Runs log-store reads; anything but a domain error means the store is unavailable (§12.2). */
  private async logStore<T>(read: () => Promise<T>): Promise<T> {
    try {
      return await read();
    } catch (err) {
      if (err instanceof DomainError) throw err;
      this.logger.warn({ msg: 'message log store unavailable', err: (err as Error).message });
      throw new ServiceUnavailableError('Message log is temporarily unavailable', 5);
    }
  }

  async get(orgId: OrgId, jobId: string): Promise<MessageLogEntry> {
    const { summary, attempts, retentionDays } = await this.logStore(async () => {
      const found = await this.messages.findByJobId(orgId, jobId, MESSAGE_LOG_ROW_CAP);
      if (!found) throw new NotFoundError('Message');
      return { ...found, retentionDays: await this.retentionDays(orgId) };
    });
    const events = await this.engagement
      .forMessage(orgId, summary.id, MESSAGE_LOG_ROW_CAP)
      .catch((err: Error) => {
        this.logger.warn({ msg: 'engagement store unavailable', err: err.message });
        return [];
      });
    return { summary, attempts, events, retentionDays };
  }

  async list(
    orgId: OrgId,
    filters: MessageListFilters,
    page: PageRequest,
  ): Promise<Page<MessageListEntry>> {
    return this.logStore(async () => {
      const [{ items, total }, days] = await Promise.all([
        this.messages.list(orgId, filters, page),
        this.retentionDays(orgId),
      ]);
      return new Page(
        items.map((summary) => ({ summary, retentionDays: days })),
        total,
        page,
      );
    });
  }
}
