// Contact emails by address for the sending side, with a fake repository and a cipher holding a
// current and an old key: lookups by every blind index of the normalised address, and the
// statuses a bounce or a complaint may not overwrite.
import type { EntityManager } from 'typeorm';
import { asOrgId } from '../common/org-id';
import { configureFieldEncryption, FieldCipher } from '../crypto/field-encryption';
import type { ContactChannelsRepository, EmailRecordStatus } from './contact-channels.repository';
import { ContactEmailService } from './contact-email.service';

const ORG = asOrgId('00000000-0000-4000-8000-000000000001');
const current = new FieldCipher(Buffer.alloc(32, 1), [Buffer.alloc(32, 2)]);
/** The cipher before the rotation: its rows carry the old key's blind index. */
const old = new FieldCipher(Buffer.alloc(32, 2));
const AT = new Date('2030-06-01T12:00:00Z');

beforeAll(() => configureFieldEncryption(current));

function setup(rows: (EmailRecordStatus & { email_hash: string })[] = []) {
  const channels = {
    emailsByHash: jest.fn(async (_org: string, hashes: string[]) =>
      rows.filter((r) => hashes.includes(r.email_hash)),
    ),
    recordBounces: jest.fn(async (..._args: unknown[]): Promise<void> => undefined),
    recordComplaint: jest.fn(async (..._args: unknown[]): Promise<EmailRecordStatus[]> => []),
  };
  const service = new ContactEmailService(channels as unknown as ContactChannelsRepository);
  return { service, channels };
}

describe('ContactEmailService.findStatusesByEmails', () => {
  it("maps each normalised address to its contact's record, whichever key indexed it", async () => {
    const { service, channels } = setup([
      {
        id: 'e1',
        contact_id: 'c1',
        status: 'verified',
        email_hash: current.blindIndex('ann@example.com'),
      },
      // Written before the key rotation.
      {
        id: 'e2',
        contact_id: 'c2',
        status: 'bounced',
        email_hash: old.blindIndex('bob@example.com'),
      },
    ]);
    const found = await service.findStatusesByEmails(ORG, [
      ' Ann@Example.com',
      'ann@example.com',
      'bob@example.com',
      'nobody@example.com',
    ]);
    expect(found).toEqual(
      new Map([
        ['ann@example.com', { contactId: 'c1', contactEmailId: 'e1', status: 'verified' }],
        ['bob@example.com', { contactId: 'c2', contactEmailId: 'e2', status: 'bounced' }],
      ]),
    );
    // One statement: two keys for each of the three distinct addresses.
    expect(channels.emailsByHash).toHaveBeenCalledTimes(1);
    expect(channels.emailsByHash.mock.calls[0][0]).toBe(ORG);
    expect(channels.emailsByHash.mock.calls[0][1]).toHaveLength(6);
  });

  it('reads nothing without an address', async () => {
    const { service, channels } = setup();
    await expect(service.findStatusesByEmails(ORG, ['', '  '])).resolves.toEqual(new Map());
    await expect(service.findStatusesByEmails(ORG, [])).resolves.toEqual(new Map());
    expect(channels.emailsByHash).not.toHaveBeenCalled();
  });
});

describe('ContactEmailService bounces and complaints', () => {
  it('records bounces on every blind index of each address, one statement per kind, keeping a suppression', async () => {
    const { service, channels } = setup();
    const em = { name: 'transaction' } as unknown as EntityManager;
    await service.recordBounces(
      em,
      ORG,
      [
        { email: 'Ann@Example.com', hard: true },
        { email: 'ann@example.com', hard: true },
        { email: 'bob@example.com', hard: false },
      ],
      AT,
    );
    expect(channels.recordBounces).toHaveBeenCalledTimes(2);
    expect(channels.recordBounces).toHaveBeenNthCalledWith(
      1,
      em,
      ORG,
      current.blindIndexCandidates('ann@example.com'),
      true,
      ['complained', 'suppressed'],
      AT,
    );
    expect(channels.recordBounces).toHaveBeenNthCalledWith(
      2,
      em,
      ORG,
      current.blindIndexCandidates('bob@example.com'),
      false,
      ['complained', 'suppressed'],
      AT,
    );
  });

  it('writes nothing without a bounce of a kind; a complaint nobody has answers null', async () => {
    const { service, channels } = setup();
    const em = { name: 'transaction' } as unknown as EntityManager;
    await service.recordBounces(em, ORG, [{ email: 'soft@example.com', hard: false }], AT);
    expect(channels.recordBounces).toHaveBeenCalledTimes(1);
    expect(channels.recordBounces.mock.calls[0][3]).toBe(false);
    await service.recordBounces(em, ORG, [], AT);
    expect(channels.recordBounces).toHaveBeenCalledTimes(1);
    await expect(service.recordComplaint(ORG, 'ghost@example.com', AT)).resolves.toBeNull();
  });

  it("records a complaint in the caller's transaction; only a suppression stands", async () => {
    const { service, channels } = setup();
    const em = { name: 'transaction' } as unknown as EntityManager;
    channels.recordComplaint.mockResolvedValueOnce([
      { id: 'e1', contact_id: 'c1', status: 'complained' },
    ]);
    await expect(service.recordComplaint(ORG, 'ann@example.com', AT, em)).resolves.toEqual({
      contactId: 'c1',
      contactEmailId: 'e1',
      status: 'complained',
    });
    expect(channels.recordComplaint).toHaveBeenCalledWith(
      ORG,
      current.blindIndexCandidates('ann@example.com'),
      AT,
      ['suppressed'],
      em,
    );
  });
});
