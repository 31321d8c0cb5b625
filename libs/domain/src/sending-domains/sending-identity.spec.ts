import { generateKeyPairSync, KeyObject, randomBytes, randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { asOrgId } from '../common/org-id';
import type { AppConfig } from '../config/app-config';
import { configureFieldEncryption, FieldCipher, fieldCipher } from '../crypto/field-encryption';
import { SenderNotVerifiedError, SenderPolicy } from './sender-policy';
import type { SendingDomainRepository, VerifiedDomainRow } from './sending-domain.repository';
import { DKIM_SIGNED_HEADERS, SendingIdentities } from './sending-identity';
import { VerifiedDomains } from './verified-domains';
import { VerpTokens } from './verp';

const ORG = asOrgId(randomUUID());
const otherOrg = () => asOrgId(randomUUID());
const pem = () =>
  generateKeyPairSync('rsa', {
    modulusLength: 1024,
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
    publicKeyEncoding: { type: 'spki', format: 'pem' },
  }).privateKey;
const PEM_APEX = pem();
const PEM_NEWS = pem();

describe(SendingIdentities.name, () => {
  beforeAll(() => configureFieldEncryption(new FieldCipher(randomBytes(32))));

  const rows = (): VerifiedDomainRow[] => [
    {
      id: 'd1',
      name: 'example.com',
      selector: 'mpaaaa',
      privateKey: fieldCipher().encrypt(PEM_APEX),
      returnPathVerified: true,
    },
    {
      id: 'd2',
      name: 'news.example.com',
      selector: 'mpbbbb',
      privateKey: fieldCipher().encrypt(PEM_NEWS),
      returnPathVerified: true,
    },
  ];
  const repository = {
    verifiedOf: async (organizationId: string) => (organizationId === ORG ? rows() : []),
  } as unknown as SendingDomainRepository;
  // No LISTEN connection is started: every lookup reads the (fake) repository.
  const domains = new VerifiedDomains({ options: {} } as DataSource, repository);
  const config = (policy: 'require' | 'allow') =>
    ({
      sendingDomains: { policy, bounceDomain: 'bounces.platform.test', spfInclude: 'x' },
    }) as AppConfig;
  const verp = new VerpTokens([randomBytes(32)]);

  it('signs with the most specific verified domain the From is, or is under', async () => {
    const identities = new SendingIdentities(config('allow'), domains, verp);
    const messageId = randomUUID();
    const deep = await identities.forMessage(ORG, messageId, 'a@x.News.Example.com');
    expect(deep.dkim).toMatchObject({
      domainName: 'news.example.com',
      keySelector: 'mpbbbb',
      headerFieldNames: DKIM_SIGNED_HEADERS,
    });
    // The key parsed once, as a KeyObject (what crypto signs with, without parsing a PEM).
    const key = deep.dkim!.privateKey as unknown as KeyObject;
    expect(key).toBeInstanceOf(KeyObject);
    expect(key.export({ type: 'pkcs8', format: 'pem' })).toBe(PEM_NEWS);
    const envelope = deep.envelopeFrom(3);
    expect(envelope).toMatch(/^bounces\+[0-9a-f]{52}@bounces\.news\.example\.com$/);
    expect(verp.verifyAddress(envelope)).toEqual({ messageId, recipientIndex: 3 });
    const apex = await identities.forMessage(ORG, messageId, 'a@example.com');
    expect(apex.dkim?.domainName).toBe('example.com');
  });

  it('leaves other domains, and other organizations, unsigned with the platform return host', async () => {
    const identities = new SendingIdentities(config('allow'), domains, verp);
    for (const [org, from] of [
      [ORG, 'a@example.org'],
      [ORG, 'a@notexample.com'],
      [otherOrg(), 'a@example.com'],
    ] as const) {
      const id = await identities.forMessage(org, randomUUID(), from);
      expect(id.dkim).toBeUndefined();
      expect(id.envelopeFrom(0)).toMatch(/@bounces\.platform\.test$/);
    }
  });

  it('refuses an unverified From only under require', async () => {
    const require = new SenderPolicy(config('require'), domains);
    await expect(require.assertMaySend(ORG, 'a@mail.example.com')).resolves.toBeUndefined();
    await expect(require.assertMaySend(ORG, 'a@Example.ORG')).rejects.toEqual(
      new SenderNotVerifiedError('example.org'),
    );
    await expect(require.assertMaySend(otherOrg(), 'a@example.com')).rejects.toMatchObject({
      code: 'E_BUSINESS_RULE_VIOLATION',
      message: 'Sender domain is not verified: example.com',
    });
    const allow = new SenderPolicy(config('allow'), domains);
    await expect(allow.assertMaySend(ORG, 'a@example.org')).resolves.toBeUndefined();
  });
});
