// All SQL of organizations: the row itself and the default contact list created with it.
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import type { OrgId } from '../common/org-id';
import { ContactList } from '../contacts/contact-list.entity';
import { generateCuid } from '../crypto/tokens';
import { Organization } from './organization.entity';

@Injectable()
export class OrganizationRepository {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  insert(fields: Partial<Organization>, em: EntityManager): Promise<Organization> {
    return em.save(em.create(Organization, fields));
  }

  /** The organization's default list ("Default list", email), which cannot be deleted. */
  async insertDefaultList(organizationId: OrgId, em: EntityManager): Promise<void> {
    await em.insert(ContactList, {
      organizationId,
      cuid: generateCuid(),
      name: 'Default list',
      description: null,
      status: 'active',
      preferredChannels: ['email'],
      isDefault: true,
      subscriberCount: 0,
    });
  }

  find(organizationId: OrgId): Promise<Organization | null> {
    return this.ds.manager.findOneBy(Organization, { id: organizationId });
  }

  async update(organizationId: OrgId, patch: Partial<Organization>): Promise<void> {
    await this.ds.manager.update(Organization, { id: organizationId }, patch);
  }
}
