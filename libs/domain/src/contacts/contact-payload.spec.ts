import { asOrgId } from '../common/org-id';
import { contactPayload, contactTagPayload } from './contact-payload';
import type { ContactEmail } from './contact-channels.entity';
import type { ContactList } from './contact-list.entity';
import type { ContactListMembership } from './contact-list-membership.entity';
import type { ContactTag } from './contact-tag.entity';
import type { Contact } from './contact.entity';
import type { ContactView, ListedContactView } from './contact-views';

const ORG = asOrgId('o1');

const CREATED = new Date('2024-01-02T03:04:05.678Z');
const UPDATED = new Date('2024-02-03T04:05:06.789Z');

function contact(): Contact {
  return {
    id: 'c1',
    organizationId: ORG,
    firstName: 'Ada',
    lastName: null,
    displayName: 'Ada',
    timezone: null,
    language: 'en',
    status: 'active',
    customFields: { plan: 'pro' },
    notes: null,
    lastActivityAt: null,
    channelMask: 1,
    createdAt: CREATED,
    updatedAt: UPDATED,
  };
}

function email(): ContactEmail {
  return {
    id: 'e1',
    organizationId: ORG,
    contactId: 'c1',
    isPrimary: true,
    email: 'ada@example.com',
    emailHash: 'hash',
    status: 'verified',
    bounceCount: 0,
    complaintCount: 0,
    verifiedAt: CREATED,
    lastBouncedAt: null,
    lastComplainedAt: null,
    createdAt: CREATED,
    updatedAt: UPDATED,
  };
}

const tag: ContactTag = {
  id: 't1',
  organizationId: ORG,
  name: 'vip',
  contactCount: 7,
  createdAt: CREATED,
  updatedAt: UPDATED,
};

const list: ContactList = {
  id: 'l1',
  organizationId: ORG,
  cuid: 'cuid1',
  name: 'Newsletter',
  description: null,
  status: 'active',
  preferredChannels: ['email'],
  isDefault: false,
  subscriberCount: 3,
  createdAt: CREATED,
  updatedAt: UPDATED,
};

const membership: ContactListMembership = {
  id: 'm1',
  organizationId: ORG,
  contactId: 'c1',
  contactListId: 'l1',
  status: 'subscribed',
  subscribedAt: CREATED,
  unsubscribedAt: null,
  unsubscribeReason: null,
  createdAt: CREATED,
  updatedAt: UPDATED,
};

describe('contactPayload', () => {
  it('spells timestamps as ISO text and keeps nulls, with only the arrays the view carries', () => {
    const out = contactPayload({ contact: contact(), tags: ['vip'], emails: [email()] });
    expect(out).toEqual({
      id: 'c1',
      organizationId: ORG,
      firstName: 'Ada',
      lastName: null,
      displayName: 'Ada',
      timezone: null,
      language: 'en',
      status: 'active',
      customFields: { plan: 'pro' },
      notes: null,
      lastActivityAt: null,
      tags: ['vip'],
      createdAt: '2024-01-02T03:04:05.678Z',
      updatedAt: '2024-02-03T04:05:06.789Z',
      emails: [
        {
          id: 'e1',
          contactId: 'c1',
          organizationId: ORG,
          email: 'ada@example.com',
          status: 'verified',
          isPrimary: true,
          bounceCount: 0,
          complaintCount: 0,
          verifiedAt: '2024-01-02T03:04:05.678Z',
          lastBouncedAt: null,
          lastComplainedAt: null,
          createdAt: '2024-01-02T03:04:05.678Z',
          updatedAt: '2024-02-03T04:05:06.789Z',
        },
      ],
    });
    expect(Object.keys(out)).not.toContain('smsNumbers');
    expect(Object.keys(out)).not.toContain('listMemberships');
    expect(Object.keys(out.emails![0])).not.toContain('emailHash');
  });

  it('passes the text timestamps of a listed page through unchanged', () => {
    const listed: ListedContactView = {
      contact: { ...contact(), createdAt: '2024-01-02T03:04:05.678Z', lastActivityAt: 'x' },
      tags: [],
    };
    const out = contactPayload(listed);
    expect(out.createdAt).toBe('2024-01-02T03:04:05.678Z');
    expect(out.lastActivityAt).toBe('x');
    expect(out.updatedAt).toBe('2024-02-03T04:05:06.789Z');
  });

  it('reports embedded tag records with contactCount 0 and memberships with their list', () => {
    const view: ContactView = {
      contact: contact(),
      tags: ['vip'],
      tagRecords: [tag],
      listMemberships: [{ membership, contactList: { list, tags: [] } }, { membership }],
    };
    const out = contactPayload(view);
    expect(out.tagRecords).toEqual([
      {
        id: 't1',
        organizationId: ORG,
        name: 'vip',
        contactCount: 0,
        createdAt: '2024-01-02T03:04:05.678Z',
        updatedAt: '2024-02-03T04:05:06.789Z',
      },
    ]);
    const [withList, withoutList] = out.listMemberships!;
    expect(withList.subscribedAt).toBe('2024-01-02T03:04:05.678Z');
    expect(withList.contactList).toMatchObject({ id: 'l1', name: 'Newsletter', tags: [] });
    expect(withList.contactList!.createdAt).toBe('2024-01-02T03:04:05.678Z');
    expect(Object.keys(withoutList)).not.toContain('contactList');
  });
});

describe('contactTagPayload', () => {
  it('reports the count it is given', () => {
    expect(contactTagPayload(tag, tag.contactCount).contactCount).toBe(7);
    expect(contactTagPayload(tag).contactCount).toBe(0);
  });
});
