// Organizations and their default list (the contacts area's): created together, in one
// transaction.
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { OrgId } from '../common/org-id';
import { ContactListsService } from '../contacts/contact-lists.service';
import { inTransaction } from '../database/transaction';
import { NotFoundError } from '../errors/domain-errors';
import { Organization, Plan, SubscriptionStatus } from './organization.entity';
import { OrganizationRepository } from './organization.repository';

export interface SendingLimitOverrides {
  perSecond?: number | null;
  perMinute?: number | null;
  perHour?: number | null;
  perDay?: number | null;
  perMonth?: number | null;
}

/** Told the id of an organization this process has just changed. */
export type OrganizationChanged = (id: OrgId) => void;

@Injectable()
export class OrganizationService {
  private readonly changed: OrganizationChanged[] = [];

  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly organizations: OrganizationRepository,
    private readonly lists: ContactListsService,
  ) {}

  async create(input: {
    name: string;
    plan?: Plan;
    subscriptionStatus?: SubscriptionStatus;
  }): Promise<Organization> {
    return inTransaction(this.ds, async (em) => {
      const org = await this.organizations.insert(
        {
          name: input.name,
          plan: input.plan ?? 'free',
          subscriptionStatus: input.subscriptionStatus ?? 'active',
          messageRetentionDays: 30,
        },
        em,
      );
      await this.lists.createDefaultIn(em, org.id);
      return org;
    });
  }

  /**
   * Calls `listener` after each change this process commits (update, setLimits). The
   * organization cache drops its copy there and then; other processes hear of it by NOTIFY.
   */
  onChange(listener: OrganizationChanged): void {
    this.changed.push(listener);
  }

  async get(id: OrgId): Promise<Organization> {
    const org = await this.organizations.find(id);
    if (!org) throw new NotFoundError('Organization');
    return org;
  }

  async update(
    id: OrgId,
    changes: {
      plan?: Plan;
      subscriptionStatus?: SubscriptionStatus;
      messageRetentionDays?: number;
      maxSendingDomains?: number | null;
    },
  ): Promise<Organization> {
    await this.get(id);
    await this.organizations.update(id, changes);
    this.changedNow(id);
    return this.get(id);
  }

  async setLimits(id: OrgId, limits: SendingLimitOverrides): Promise<Organization> {
    await this.get(id);
    const patch: Partial<Organization> = {};
    if (limits.perSecond !== undefined) patch.limitPerSecond = limits.perSecond;
    if (limits.perMinute !== undefined) patch.limitPerMinute = limits.perMinute;
    if (limits.perHour !== undefined) patch.limitPerHour = limits.perHour;
    if (limits.perDay !== undefined) patch.limitPerDay = limits.perDay;
    if (limits.perMonth !== undefined) patch.limitPerMonth = limits.perMonth;
    if (Object.keys(patch).length) {
      await this.organizations.update(id, patch);
      this.changedNow(id);
    }
    return this.get(id);
  }

  private changedNow(id: OrgId): void {
    for (const listener of this.changed) listener(id);
  }
}
