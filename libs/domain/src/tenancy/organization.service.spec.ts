// Organizations with a fake repository and lists service: creation with its default list in one
// transaction, the 404 of a missing organization, and which fields a change of limits writes.
import type { DataSource, EntityManager } from 'typeorm';
import { asOrgId } from '../common/org-id';
import type { ContactListsService } from '../contacts/contact-lists.service';
import type { Organization } from './organization.entity';
import type { OrganizationRepository } from './organization.repository';
import { OrganizationService } from './organization.service';

const ORG = asOrgId('00000000-0000-4000-8000-000000000001');

function organization(fields: Partial<Organization> = {}): Organization {
  return {
    id: ORG,
    name: 'Acme',
    plan: 'free',
    subscriptionStatus: 'active',
    messageRetentionDays: 30,
    limitPerSecond: null,
    limitPerMinute: null,
    limitPerHour: null,
    limitPerDay: null,
    limitPerMonth: null,
    maxSendingDomains: null,
    createdAt: new Date('2030-01-01T00:00:00Z'),
    updatedAt: new Date('2030-01-01T00:00:00Z'),
    ...fields,
  };
}

function setup(stored: Organization | null = organization()) {
  const em = { name: 'transaction' } as unknown as EntityManager;
  const ds = {
    transaction: jest.fn((work: (em: EntityManager) => Promise<unknown>) => work(em)),
  } as unknown as DataSource;
  let row = stored;
  const repo = {
    insert: jest.fn(async (fields: Partial<Organization>, _em: EntityManager) =>
      organization({ ...fields, id: ORG }),
    ),
    find: jest.fn(async (_id: string) => row),
    update: jest.fn(async (_id: string, patch: Partial<Organization>) => {
      if (row) row = { ...row, ...patch };
    }),
  };
  const lists = {
    createDefaultIn: jest.fn(async (_em: EntityManager, _id: string) => undefined),
  };
  const service = new OrganizationService(
    ds,
    repo as unknown as OrganizationRepository,
    lists as unknown as ContactListsService,
  );
  return { service, repo, lists, em, ds };
}

describe('OrganizationService', () => {
  it('creates the organization with the plan defaults and its default list in one transaction', async () => {
    const { service, repo, lists, em, ds } = setup();
    const org = await service.create({ name: 'Acme' });
    expect(ds.transaction).toHaveBeenCalledTimes(1);
    expect(repo.insert).toHaveBeenCalledWith(
      { name: 'Acme', plan: 'free', subscriptionStatus: 'active', messageRetentionDays: 30 },
      em,
    );
    expect(lists.createDefaultIn).toHaveBeenCalledWith(em, ORG);
    expect(org).toMatchObject({ id: ORG, name: 'Acme', plan: 'free' });
  });

  it('keeps the plan and subscription status it is given', async () => {
    const { service, repo } = setup();
    await service.create({ name: 'Big', plan: 'enterprise', subscriptionStatus: 'trialing' });
    expect(repo.insert).toHaveBeenCalledWith(
      expect.objectContaining({ plan: 'enterprise', subscriptionStatus: 'trialing' }),
      expect.anything(),
    );
  });

  it('does not create the default list when the organization insert fails', async () => {
    const { service, repo, lists } = setup();
    repo.insert.mockRejectedValueOnce(new Error('connection lost'));
    await expect(service.create({ name: 'Acme' })).rejects.toThrow('connection lost');
    expect(lists.createDefaultIn).not.toHaveBeenCalled();
  });

  it('answers 404 for an organization that does not exist, and changes nothing', async () => {
    const { service, repo } = setup(null);
    await expect(service.get(ORG)).rejects.toMatchObject({ code: 'E_ROW_NOT_FOUND' });
    await expect(service.update(ORG, { plan: 'pro' })).rejects.toMatchObject({
      code: 'E_ROW_NOT_FOUND',
    });
    await expect(service.setLimits(ORG, { perDay: 10 })).rejects.toMatchObject({
      code: 'E_ROW_NOT_FOUND',
    });
    expect(repo.update).not.toHaveBeenCalled();
  });

  it('updates the organization and answers it as read back', async () => {
    const { service, repo } = setup();
    const org = await service.update(ORG, { plan: 'pro', maxSendingDomains: 7 });
    expect(repo.update).toHaveBeenCalledWith(ORG, { plan: 'pro', maxSendingDomains: 7 });
    expect(org).toMatchObject({ plan: 'pro', maxSendingDomains: 7 });
  });

  it('writes only the limits given: null clears one, an absent one stays', async () => {
    const { service, repo } = setup(organization({ limitPerHour: 500, limitPerDay: 900 }));
    const org = await service.setLimits(ORG, { perSecond: 5, perDay: null });
    expect(repo.update).toHaveBeenCalledWith(ORG, { limitPerSecond: 5, limitPerDay: null });
    expect(org).toMatchObject({ limitPerSecond: 5, limitPerHour: 500, limitPerDay: null });
  });

  it('writes nothing when no limit is given', async () => {
    const { service, repo } = setup();
    await expect(service.setLimits(ORG, {})).resolves.toMatchObject({ id: ORG });
    expect(repo.update).not.toHaveBeenCalled();
  });
});
