import { asOrgId } from '@app/domain';
import type { Contact, ContactEmail, ContactListMembership, ContactTag } from '@app/domain';
import { toContactListMembershipResponse } from './contact-list.response';
import { toContactTagNameResponse, toContactTagResponse } from './contact-tag.response';

const ORG = asOrgId('o1');
const CREATED = new Date('2024-01-02T03:04:05.678Z');

const membership: ContactListMembership = {
  id: 'm1',
  organizationId: ORG,
  contactId: 'c1',
  contactListId: 'l1',
  status: 'unsubscribed',
  subscribedAt: CREATED,
  unsubscribedAt: CREATED,
  unsubscribeReason: 'moved',
  createdAt: CREATED,
  updatedAt: CREATED,
};

const contact: Contact = {
  id: 'c1',
  organizationId: ORG,
  firstName: 'Ada',
  lastName: 'Lovelace',
  displayName: 'Ada Lovelace',
  timezone: 'Europe/London',
  language: 'en',
  status: 'active',
  customFields: { plan: 'pro' },
  notes: 'n',
  lastActivityAt: CREATED,
  channelMask: 1,
  createdAt: CREATED,
  updatedAt: CREATED,
};

const email = {
  id: 'e1',
  organizationId: ORG,
  contactId: 'c1',
  isPrimary: true,
  email: 'ada@example.com',
  status: 'verified',
  bounceCount: 0,
  complaintCount: 0,
  verifiedAt: null,
  lastBouncedAt: null,
  lastComplainedAt: null,
  createdAt: CREATED,
  updatedAt: CREATED,
} as unknown as ContactEmail;

describe('toContactListMembershipResponse', () => {
  it('is the bare membership when the view carries neither contact nor list', () => {
    expect(toContactListMembershipResponse({ membership })).toEqual({
      id: 'm1',
      contactId: 'c1',
      contactListId: 'l1',
      status: 'unsubscribed',
      subscribedAt: '2024-01-02T03:04:05.678Z',
      unsubscribedAt: '2024-01-02T03:04:05.678Z',
      unsubscribeReason: 'moved',
      createdAt: '2024-01-02T03:04:05.678Z',
      updatedAt: '2024-01-02T03:04:05.678Z',
    });
  });

  it("embeds the member's summary: the summary fields and emails only", () => {
    const out = toContactListMembershipResponse({
      membership,
      contact: { contact, tags: ['vip'], emails: [email] },
    });
    expect(out.contact).toEqual({
      id: 'c1',
      organizationId: ORG,
      firstName: 'Ada',
      lastName: 'Lovelace',
      displayName: 'Ada Lovelace',
      status: 'active',
      tags: ['vip'],
      createdAt: '2024-01-02T03:04:05.678Z',
      updatedAt: '2024-01-02T03:04:05.678Z',
      emails: [expect.objectContaining({ id: 'e1', email: 'ada@example.com' })],
    });
    expect(Object.keys(out)).not.toContain('contactList');
  });
});

describe('tag responses', () => {
  const tag: ContactTag = {
    id: 't1',
    organizationId: ORG,
    name: 'vip',
    contactCount: 4,
    createdAt: CREATED,
    updatedAt: CREATED,
  };

  it('a tag of the tag routes carries its count', () => {
    expect(toContactTagResponse(tag)).toEqual({
      id: 't1',
      organizationId: ORG,
      name: 'vip',
      contactCount: 4,
      createdAt: '2024-01-02T03:04:05.678Z',
      updatedAt: '2024-01-02T03:04:05.678Z',
    });
  });

  it('a tag of the unpaginated listing is id and name with contactCount 0', () => {
    expect(toContactTagNameResponse({ id: 't1', name: 'vip' })).toEqual({
      id: 't1',
      name: 'vip',
      contactCount: 0,
    });
  });
});
