// DKIM keys are made in worker threads, never through crypto's threadpool API on the main thread,
// and at most the pool's size of them at once.
import crypto from 'node:crypto';
import { threadId as mainThreadId } from 'node:worker_threads';

// Installed before dkim-key loads, so that even a reference taken at load time is the spy.
const generateKeyPair = jest.spyOn(crypto, 'generateKeyPair');
const generateKeyPairSync = jest.spyOn(crypto, 'generateKeyPairSync');

type Module = typeof import('./dkim-key');
const load = (): Module => jest.requireActual<Module>('./dkim-key');

/**
 * The pool's rules do not depend on the key size: the tests of the pool make small keys, which
 * take a fraction of a 2048-bit key's time (the first test makes one of the default size).
 */
const SMALL_KEY_BITS = 1024;

/** The most intervals that overlap at any instant. */
function peakOverlap(runs: { startedAt: number; endedAt: number }[]): number {
  return Math.max(
    ...runs.map(
      (r) => runs.filter((o) => o.startedAt <= r.startedAt && r.startedAt < o.endedAt).length,
    ),
  );
}

describe('DkimKeyGenerator', () => {
  let generators: InstanceType<Module['DkimKeyGenerator']>[] = [];
  const generator = (size?: number, bits?: number) => {
    const { DkimKeyGenerator } = load();
    const g = new DkimKeyGenerator(size, bits);
    generators.push(g);
    return g;
  };
  afterEach(async () => {
    await Promise.all(generators.map((g) => g.onModuleDestroy()));
    generators = [];
  });

  it('makes a 2048-bit RSA pair in another thread, without the main thread calling generateKeyPair', async () => {
    const key = await generator().generate();
    expect(key.threadId).not.toBe(mainThreadId);
    expect(key.selector).toMatch(/^mp[0-9a-f]{10}$/);
    const publicKey = crypto.createPublicKey({
      key: Buffer.from(key.publicKey, 'base64'),
      format: 'der',
      type: 'spki',
    });
    expect(publicKey.asymmetricKeyType).toBe('rsa');
    expect(publicKey.asymmetricKeyDetails?.modulusLength).toBe(2048);
    const signature = crypto.sign('sha256', Buffer.from('x'), key.privateKey);
    expect(crypto.verify('sha256', Buffer.from('x'), publicKey, signature)).toBe(true);
    expect(generateKeyPair).not.toHaveBeenCalled();
    expect(generateKeyPairSync).not.toHaveBeenCalled();
  });

  it('runs one generation at a time by default: concurrent requests queue for one thread', async () => {
    const g = generator(undefined, SMALL_KEY_BITS);
    const keys = await Promise.all([g.generate(), g.generate(), g.generate()]);
    expect(new Set(keys.map((k) => k.threadId)).size).toBe(1);
    expect(peakOverlap(keys)).toBe(1);
    expect(new Set(keys.map((k) => k.publicKey)).size).toBe(3);
  });

  it('runs at most the pool size at once', async () => {
    const g = generator(2, SMALL_KEY_BITS);
    const keys = await Promise.all(Array.from({ length: 5 }, () => g.generate()));
    const threads = new Set(keys.map((k) => k.threadId));
    expect(threads.size).toBe(2);
    expect(threads.has(mainThreadId)).toBe(false);
    expect(peakOverlap(keys)).toBeLessThanOrEqual(2);
    expect(generateKeyPair).not.toHaveBeenCalled();
  });

  it('refuses new work once stopped, and fails what still waited', async () => {
    const g = generator();
    const running = expect(g.generate()).rejects.toThrow(/DKIM key thread ended/);
    const waiting = expect(g.generate()).rejects.toThrow('DKIM key generation stopped');
    await g.onModuleDestroy();
    await Promise.all([running, waiting]);
    await expect(g.generate()).rejects.toThrow('DKIM key generation has stopped');
  });
});
