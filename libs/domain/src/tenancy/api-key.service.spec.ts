// The per-process key cache against revocation: a database read that started before an
// invalidation must not put its (stale) row back into the cache after the invalidation.
import { EventEmitter } from 'node:events';
import type Redis from 'ioredis';
import { generateApiKey } from '../crypto/tokens';
import type { ApiKeyRepository, KeyRecord } from './api-key.repository';
import { ApiKeyService } from './api-key.service';
import { asOrgId } from '../common/org-id';

type Row = KeyRecord;

function deferred<T>() {
  let resolve!: (v: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

/** A key repository whose lookups by hash are answered by the test, one at a time. */
function fakeKeys(reads: Promise<Row | null>[]): ApiKeyRepository {
  return {
    findByHash: () => {
      const next = reads.shift();
      if (!next) throw new Error('unexpected database read');
      return next;
    },
    touchLastUsed: () => Promise.resolve(),
  } as unknown as ApiKeyRepository;
}

/** A Redis whose subscriber connection the test drives (`emit('message', ...)`). */
function fakeRedis() {
  const subscriber = Object.assign(new EventEmitter(), {
    status: 'ready',
    // A connection to one server (not a Sentinel group): closed with QUIT.
    options: {},
    subscribe: () => Promise.resolve(1),
    quit: () => Promise.resolve('OK'),
  });
  const redis = {
    duplicate: () => subscriber,
    publish: () => Promise.resolve(1),
  } as unknown as Redis;
  return { redis, subscriber };
}

const live: Row = {
  id: '00000000-0000-4000-8000-000000000001',
  organizationId: asOrgId('00000000-0000-4000-8000-000000000002'),
  scopes: ['contacts:read'],
  rateLimitPerMinute: 300,
  rateLimitPerDay: null,
  expiresAt: null,
  revokedAt: null,
};
const revoked: Row = { ...live, revokedAt: new Date('2030-01-01T00:00:00Z') };
const flush = () => new Promise((r) => setImmediate(r));

describe('ApiKeyService cache', () => {
  it('does not cache a row read before an invalidation from another replica', async () => {
    const first = deferred<Row | null>();
    const second = deferred<Row | null>();
    const { redis, subscriber } = fakeRedis();
    const service = new ApiKeyService(fakeKeys([first.promise, second.promise]), redis);
    await service.onModuleInit();
    const value = generateApiKey();

    // A request starts resolving; its read is answered only after the key was revoked elsewhere
    // and the invalidation reached this process.
    const inFlight = service.resolve(value);
    await flush();
    subscriber.emit('message', 'api-keys:invalidate', '1');
    first.resolve(live);
    expect((await inFlight)?.revokedAt).toBeNull();

    // The next request must read the database again and see the revocation.
    second.resolve(revoked);
    expect((await service.resolve(value))?.revokedAt).toEqual(revoked.revokedAt);
    await service.onModuleDestroy();
  });

  it('does not cache a row read before this process revoked the key', async () => {
    const first = deferred<Row | null>();
    const second = deferred<Row | null>();
    const { redis } = fakeRedis();
    const keys = fakeKeys([first.promise, second.promise]);
    const service = new ApiKeyService(keys, redis);
    await service.onModuleInit();
    const value = generateApiKey();

    const inFlight = service.resolve(value);
    await flush();
    // What revoke() does once its UPDATE has committed.
    await (service as unknown as { invalidate(): Promise<void> }).invalidate();
    first.resolve(live);
    await inFlight;

    second.resolve(revoked);
    expect((await service.resolve(value))?.revokedAt).toEqual(revoked.revokedAt);
    await service.onModuleDestroy();
  });

  it('serves from the cache while no invalidation happened', async () => {
    const first = deferred<Row | null>();
    const { redis } = fakeRedis();
    const service = new ApiKeyService(fakeKeys([first.promise]), redis);
    await service.onModuleInit();
    const value = generateApiKey();
    first.resolve(live);
    await service.resolve(value);
    // A second read would throw `unexpected database read`.
    expect(await service.resolve(value)).toMatchObject({ id: live.id, revokedAt: null });
    await service.onModuleDestroy();
  });

  it('bypasses the cache while the invalidation channel is down', async () => {
    const { redis, subscriber } = fakeRedis();
    const service = new ApiKeyService(
      fakeKeys([Promise.resolve(live), Promise.resolve(revoked)]),
      redis,
    );
    await service.onModuleInit();
    const value = generateApiKey();
    await service.resolve(value);
    // A revocation published now would be lost: nothing cached may be trusted until resubscribed.
    subscriber.status = 'reconnecting';
    subscriber.emit('close');
    expect((await service.resolve(value))?.revokedAt).toEqual(revoked.revokedAt);
    await service.onModuleDestroy();
  });
});
