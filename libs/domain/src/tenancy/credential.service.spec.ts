// Credential resolution (§3) with a fake key service and user service: the order of the
// credentials, what each refusal answers, and the context a live credential gives.
import type { Clock } from '../common/clock';
import { asOrgId } from '../common/org-id';
import type { ApiKeyService, ResolvedKey } from './api-key.service';
import { CredentialService, PresentedCredentials } from './credential.service';
import { SCOPES } from './scopes';
import type { UserService } from './user.service';

const ORG = asOrgId('00000000-0000-4000-8000-000000000001');
const OTHER_ORG = asOrgId('00000000-0000-4000-8000-000000000002');
const NOW = new Date('2030-06-01T12:00:00Z');
const KEY_VALUE = 'bk_live_key_value';
const TOKEN = 'at_session_token';

const liveKey: ResolvedKey = {
  id: 'key-1',
  organizationId: ORG,
  scopes: ['contacts:read', 'messages:send'],
  rateLimitPerMinute: 300,
  rateLimitPerDay: 10_000,
  expiresAt: null,
  revokedAt: null,
};

function setup(key: ResolvedKey | null = liveKey, role: 'owner' | 'member' | null = 'member') {
  const keys = { resolve: jest.fn(async (_value: string, _now?: Date) => key) };
  const users = {
    resolveToken: jest.fn(async (token: string, _now: Date, _sliding: boolean) =>
      token === TOKEN ? { userId: 'user-1' } : null,
    ),
    roleIn: jest.fn(async (_userId: string, _orgId: string) => role),
    organizationsOfToken: jest.fn(async (token: string, _now: Date, _sliding: boolean) =>
      token === TOKEN ? [{ id: ORG, name: 'Acme', plan: 'free', role: 'owner' }] : null,
    ),
    logout: jest.fn(async (_token: string) => undefined),
  };
  const clock: Clock = { now: () => NOW };
  const service = new CredentialService(
    keys as unknown as ApiKeyService,
    users as unknown as UserService,
    clock,
  );
  return { service, keys, users };
}

const refusal = (code: string, message?: string) =>
  expect.objectContaining(message ? { code, message } : { code });

describe('CredentialService.authenticate with an API key', () => {
  it('gives the key organization, its scopes and its limits; the value is trimmed', async () => {
    const { service, keys } = setup();
    const ctx = await service.authenticate({ apiKey: ` ${KEY_VALUE} ` });
    expect(keys.resolve).toHaveBeenCalledWith(KEY_VALUE, NOW);
    expect(ctx.organizationId).toBe(ORG);
    expect([...ctx.scopes].sort()).toEqual(['contacts:read', 'messages:send']);
    expect(ctx.principal).toEqual({
      type: 'api_key',
      keyId: 'key-1',
      rateLimitPerMinute: 300,
      rateLimitPerDay: 10_000,
    });
  });

  it('takes a bk_ key from the Authorization header as a bearer value', async () => {
    const { service, keys, users } = setup();
    const ctx = await service.authenticate({ authorization: `Bearer ${KEY_VALUE}` });
    expect(keys.resolve).toHaveBeenCalledWith(KEY_VALUE, NOW);
    expect(users.resolveToken).not.toHaveBeenCalled();
    expect(ctx.principal.type).toBe('api_key');
  });

  it('refuses an unknown, a revoked and an expired key with 401', async () => {
    await expect(setup(null).service.authenticate({ apiKey: KEY_VALUE })).rejects.toEqual(
      refusal('E_UNAUTHORIZED_ACCESS', 'Invalid API key'),
    );
    const revoked = { ...liveKey, revokedAt: new Date('2030-01-01T00:00:00Z') };
    await expect(setup(revoked).service.authenticate({ apiKey: KEY_VALUE })).rejects.toEqual(
      refusal('E_UNAUTHORIZED_ACCESS', 'API key has been revoked'),
    );
    // Expiring exactly now is expired.
    const expired = { ...liveKey, expiresAt: NOW };
    await expect(setup(expired).service.authenticate({ apiKey: KEY_VALUE })).rejects.toEqual(
      refusal('E_UNAUTHORIZED_ACCESS', 'API key has expired'),
    );
    const later = { ...liveKey, expiresAt: new Date(NOW.getTime() + 1) };
    await expect(setup(later).service.authenticate({ apiKey: KEY_VALUE })).resolves.toMatchObject({
      organizationId: ORG,
    });
  });

  it('refuses X-Organization-Id naming another organization with 403, in any letter case', async () => {
    const { service } = setup();
    await expect(
      service.authenticate({ apiKey: KEY_VALUE, organizationId: OTHER_ORG }),
    ).rejects.toEqual(refusal('E_FORBIDDEN'));
    await expect(
      service.authenticate({ apiKey: KEY_VALUE, organizationId: ORG.toUpperCase() }),
    ).resolves.toMatchObject({ organizationId: ORG });
  });

  it('never consults the session cookie beside a key: a bad key is not rescued', async () => {
    const { service, users } = setup(null);
    await expect(
      service.authenticate({
        apiKey: KEY_VALUE,
        session: { token: TOKEN, withHeader: true },
        organizationId: ORG,
      }),
    ).rejects.toEqual(refusal('E_UNAUTHORIZED_ACCESS', 'Invalid API key'));
    expect(users.resolveToken).not.toHaveBeenCalled();
  });
});

describe('CredentialService.authenticate with an access token', () => {
  it('gives the role scopes in the organization the header names (lowercased)', async () => {
    const { service, users } = setup(liveKey, 'member');
    const ctx = await service.authenticate({
      authorization: `Bearer ${TOKEN}`,
      organizationId: ORG.toUpperCase(),
    });
    expect(users.resolveToken).toHaveBeenCalledWith(TOKEN, NOW, false);
    expect(users.roleIn).toHaveBeenCalledWith('user-1', ORG);
    expect(ctx.organizationId).toBe(ORG);
    expect(ctx.principal).toEqual({ type: 'user', userId: 'user-1', role: 'member' });
    expect(ctx.scopes.has('contacts:write')).toBe(true);
    expect(ctx.scopes.has('keys:manage')).toBe(false);
    const owner = await setup(liveKey, 'owner').service.authenticate({
      authorization: `Bearer ${TOKEN}`,
      organizationId: ORG,
    });
    expect(owner.scopes.size).toBe(SCOPES.length);
  });

  it('answers 401 for a malformed header or a dead token, 403 for a missing or foreign organization', async () => {
    const { service } = setup(liveKey, null);
    await expect(service.authenticate({ authorization: 'Basic abc' })).rejects.toEqual(
      refusal('E_UNAUTHORIZED_ACCESS', 'Malformed Authorization header'),
    );
    await expect(
      service.authenticate({ authorization: 'Bearer at_unknown', organizationId: ORG }),
    ).rejects.toEqual(refusal('E_UNAUTHORIZED_ACCESS', 'Invalid or expired access token'));
    await expect(service.authenticate({ authorization: `Bearer ${TOKEN}` })).rejects.toEqual(
      refusal('E_FORBIDDEN', 'X-Organization-Id is required with an access token'),
    );
    await expect(
      service.authenticate({ authorization: `Bearer ${TOKEN}`, organizationId: 'acme' }),
    ).rejects.toEqual(refusal('E_FORBIDDEN', 'X-Organization-Id must be an organization id'));
    await expect(
      service.authenticate({ authorization: `Bearer ${TOKEN}`, organizationId: ORG }),
    ).rejects.toEqual(refusal('E_FORBIDDEN', 'Not a member of this organization'));
  });

  it('takes the session cookie only with the dashboard header, and slides its expiry', async () => {
    const { service, users } = setup();
    await expect(service.authenticate({})).rejects.toEqual(
      refusal('E_UNAUTHORIZED_ACCESS', 'Missing credentials'),
    );
    await expect(
      service.authenticate({ session: { token: TOKEN, withHeader: false }, organizationId: ORG }),
    ).rejects.toEqual(
      refusal(
        'E_UNAUTHORIZED_ACCESS',
        'The session cookie is accepted only with X-Requested-With: dashboard',
      ),
    );
    expect(users.resolveToken).not.toHaveBeenCalled();
    const ctx = await service.authenticate({
      session: { token: TOKEN, withHeader: true },
      organizationId: ORG,
    });
    expect(users.resolveToken).toHaveBeenCalledWith(TOKEN, NOW, true);
    expect(ctx.principal).toMatchObject({ type: 'user', userId: 'user-1' });
  });
});

describe('CredentialService.organizationsOf and logout', () => {
  const tokenOnly: [string, PresentedCredentials][] = [
    ['an API key', { apiKey: KEY_VALUE }],
    ['a bk_ bearer', { authorization: `Bearer ${KEY_VALUE}` }],
    ['nothing', {}],
  ];

  it.each(tokenOnly)('refuses %s: an access token is required', async (_label, presented) => {
    const { service, users } = setup();
    await expect(service.organizationsOf(presented)).rejects.toEqual(
      refusal('E_UNAUTHORIZED_ACCESS', 'An access token is required'),
    );
    expect(users.organizationsOfToken).not.toHaveBeenCalled();
  });

  it('lists the organizations of the token user; a dead token is a 401', async () => {
    const { service, users } = setup();
    await expect(
      service.organizationsOf({ session: { token: TOKEN, withHeader: true } }),
    ).resolves.toEqual([{ id: ORG, name: 'Acme', plan: 'free', role: 'owner' }]);
    expect(users.organizationsOfToken).toHaveBeenCalledWith(TOKEN, NOW, true);
    await expect(service.organizationsOf({ authorization: 'Bearer at_gone' })).rejects.toEqual(
      refusal('E_UNAUTHORIZED_ACCESS', 'Invalid or expired access token'),
    );
  });

  it('revokes the presented token; with nothing to revoke it succeeds without a call', async () => {
    const { service, users } = setup();
    await service.logout({ apiKey: KEY_VALUE });
    await service.logout({});
    await service.logout({ session: { token: TOKEN, withHeader: false } });
    expect(users.logout).not.toHaveBeenCalled();
    await service.logout({ authorization: `Bearer ${TOKEN}` });
    expect(users.logout).toHaveBeenCalledWith(TOKEN);
  });
});

describe('CredentialService.liveKey', () => {
  it('answers a live key and null for an unknown, revoked or expired one', async () => {
    await expect(setup().service.liveKey(KEY_VALUE, NOW)).resolves.toEqual(liveKey);
    await expect(setup(null).service.liveKey(KEY_VALUE, NOW)).resolves.toBeNull();
    const revoked = { ...liveKey, revokedAt: NOW };
    await expect(setup(revoked).service.liveKey(KEY_VALUE, NOW)).resolves.toBeNull();
    const expired = { ...liveKey, expiresAt: new Date(NOW.getTime() - 1) };
    await expect(setup(expired).service.liveKey(KEY_VALUE, NOW)).resolves.toBeNull();
  });
});
