// Users, memberships and access tokens with one fake for both repositories and a stand-in for scrypt: the
// membership rules of createUser, the token a login gets and how a presented token is resolved.
import type { DataSource, EntityManager } from 'typeorm';
import { asOrgId } from '../common/org-id';
import { generateAccessToken, sha256Hex } from '../crypto/tokens';
import { NotFoundError } from '../errors/domain-errors';
import type { MembershipRepository } from './membership.repository';
import type { OrganizationService } from './organization.service';
import type { Role } from './user.entity';
import type { UserRepository } from './user.repository';
import { SESSION_MAX_AGE_MS, UserService } from './user.service';

jest.mock('../crypto/passwords', () => ({
  ...jest.requireActual('../crypto/passwords'),
  hashPassword: jest.fn(async (password: string) => `h:${password}`),
}));

const ORG = asOrgId('00000000-0000-4000-8000-000000000001');
const PASSWORD = 'correct horse battery';
const DAY_MS = 24 * 60 * 60 * 1000;
const NOW = new Date('2030-06-01T12:00:00Z');

function setup(opts: { existing?: boolean; role?: Role | null; org?: boolean } = {}) {
  const em = { name: 'transaction' } as unknown as EntityManager;
  const ds = {
    transaction: jest.fn((work: (em: EntityManager) => Promise<unknown>) => work(em)),
  } as unknown as DataSource;
  const repo = {
    findByEmail: jest.fn(async (email: string, _em?: EntityManager) =>
      opts.existing ? { id: 'user-old', email } : null,
    ),
    insert: jest.fn(async (email: string, _hash: string, _em: EntityManager) => ({
      id: 'user-new',
      email,
    })),
    roleIn: jest.fn(
      async (_orgId: string, _userId: string, _em?: EntityManager) => opts.role ?? null,
    ),
    addMember: jest.fn(async () => undefined),
    credentialsOf: jest.fn(async (_email: string) => ({ id: 'user-old', passwordHash: 'h:x' })),
    replacePasswordHash: jest.fn(async () => true),
    insertToken: jest.fn(async () => undefined),
    revokeToken: jest.fn(async () => undefined),
    userOfLiveToken: jest.fn(async (): Promise<string | null> => 'user-old'),
    userOfLiveTokenSliding: jest.fn(async (): Promise<string | null> => 'user-old'),
    organizationsOf: jest.fn(async (_userId: string) => [
      { id: ORG, name: 'Acme', plan: 'free', role: 'admin' as Role },
    ]),
  };
  const organizations = {
    get: jest.fn(async (id: string) => {
      if (opts.org === false) throw new NotFoundError('Organization');
      return { id, plan: 'free' };
    }),
  };
  const service = new UserService(
    ds,
    repo as unknown as UserRepository,
    repo as unknown as MembershipRepository,
    organizations as unknown as OrganizationService,
  );
  return { service, repo, organizations, em };
}

describe('UserService.createUser', () => {
  it('creates the user with a hashed password and the normalised email, and makes it a member', async () => {
    const { service, repo, em } = setup();
    const user = await service.createUser({
      email: '  Ann@Example.COM ',
      password: PASSWORD,
      organizationId: ORG,
      role: 'admin',
    });
    expect(repo.findByEmail).toHaveBeenCalledWith('ann@example.com', em);
    expect(repo.insert).toHaveBeenCalledWith('ann@example.com', `h:${PASSWORD}`, em);
    expect(repo.addMember).toHaveBeenCalledWith(ORG, 'user-new', 'admin', em);
    expect(user).toEqual({ id: 'user-new', email: 'ann@example.com' });
  });

  it('adds an existing user to the organization and keeps its password', async () => {
    const { service, repo } = setup({ existing: true });
    const user = await service.createUser({
      email: 'ann@example.com',
      password: PASSWORD,
      organizationId: ORG,
      role: 'member',
    });
    expect(repo.insert).not.toHaveBeenCalled();
    expect(repo.roleIn).toHaveBeenCalledWith(ORG, 'user-old', expect.anything());
    expect(repo.addMember).toHaveBeenCalledWith(ORG, 'user-old', 'member', expect.anything());
    expect(user.id).toBe('user-old');
  });

  it('refuses a member of the organization with 409 and adds no membership', async () => {
    const { service, repo } = setup({ existing: true, role: 'owner' });
    await expect(
      service.createUser({
        email: 'ann@example.com',
        password: PASSWORD,
        organizationId: ORG,
        role: 'admin',
      }),
    ).rejects.toMatchObject({ code: 'E_BUSINESS_RULE_VIOLATION' });
    expect(repo.addMember).not.toHaveBeenCalled();
  });

  it('refuses a short password with a 422 on password before any lookup', async () => {
    const { service, repo, organizations } = setup();
    const err = await service
      .createUser({ email: 'a@x.io', password: 'short', organizationId: ORG, role: 'member' })
      .catch((e: unknown) => e);
    expect(err).toMatchObject({
      code: 'E_VALIDATION_ERROR',
      errors: [expect.objectContaining({ field: 'password', rule: 'minLength' })],
    });
    expect(organizations.get).not.toHaveBeenCalled();
    expect(repo.findByEmail).not.toHaveBeenCalled();
  });

  it('answers 404 for an unknown organization and creates no user', async () => {
    const { service, repo } = setup({ org: false });
    await expect(
      service.createUser({
        email: 'a@x.io',
        password: PASSWORD,
        organizationId: ORG,
        role: 'member',
      }),
    ).rejects.toMatchObject({ code: 'E_ROW_NOT_FOUND' });
    expect(repo.insert).not.toHaveBeenCalled();
    expect(repo.addMember).not.toHaveBeenCalled();
  });
});

describe('UserService tokens', () => {
  it('issues a token live 24 hours and stores only its hash', async () => {
    const { service, repo } = setup();
    const { accessToken, expiresAt } = await service.issueToken('user-1', NOW);
    expect(accessToken).toMatch(/^at_[A-Za-z0-9_-]{43}$/);
    expect(expiresAt).toEqual(new Date(NOW.getTime() + DAY_MS));
    expect(repo.insertToken).toHaveBeenCalledWith('user-1', sha256Hex(accessToken), expiresAt);
  });

  it('revokes a token by its hash', async () => {
    const { service, repo } = setup();
    await service.logout('at_value');
    expect(repo.revokeToken).toHaveBeenCalledWith(sha256Hex('at_value'));
  });

  it('resolves a well-formed token by its hash; a session token slides within its cap', async () => {
    const { service, repo } = setup();
    const token = generateAccessToken();
    await expect(service.resolveToken(token, NOW)).resolves.toEqual({ userId: 'user-old' });
    expect(repo.userOfLiveToken).toHaveBeenCalledWith(sha256Hex(token), NOW);
    expect(repo.userOfLiveTokenSliding).not.toHaveBeenCalled();
    await service.resolveToken(token, NOW, true);
    expect(repo.userOfLiveTokenSliding).toHaveBeenCalledWith(
      sha256Hex(token),
      NOW,
      DAY_MS,
      SESSION_MAX_AGE_MS,
    );
  });

  it('answers null for a malformed token without reading, and for a dead one', async () => {
    const { service, repo } = setup();
    await expect(service.resolveToken('bk_live_not_a_token', NOW)).resolves.toBeNull();
    await expect(service.resolveToken('at_short', NOW)).resolves.toBeNull();
    expect(repo.userOfLiveToken).not.toHaveBeenCalled();
    repo.userOfLiveToken.mockResolvedValueOnce(null);
    await expect(service.resolveToken(generateAccessToken(), NOW)).resolves.toBeNull();
  });

  it('lists the organizations of a live token user, and null for a dead token', async () => {
    const { service, repo } = setup();
    await expect(service.organizationsOfToken(generateAccessToken(), NOW)).resolves.toEqual([
      { id: ORG, name: 'Acme', plan: 'free', role: 'admin' },
    ]);
    expect(repo.organizationsOf).toHaveBeenCalledWith('user-old');
    repo.organizationsOf.mockClear();
    repo.userOfLiveToken.mockResolvedValueOnce(null);
    await expect(service.organizationsOfToken(generateAccessToken(), NOW)).resolves.toBeNull();
    expect(repo.organizationsOf).not.toHaveBeenCalled();
  });
});

describe('UserService lookups', () => {
  it('asks for a role with the organization first, and finds a login by normalised email', async () => {
    const { service, repo } = setup({ role: 'member' });
    await expect(service.roleIn('user-1', ORG)).resolves.toBe('member');
    expect(repo.roleIn).toHaveBeenCalledWith(ORG, 'user-1');
    await service.findForLogin(' Ann@Example.com');
    expect(repo.credentialsOf).toHaveBeenCalledWith('ann@example.com');
  });
});
