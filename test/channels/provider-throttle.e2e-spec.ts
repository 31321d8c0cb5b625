// The provider layer's throughput in Redis (§17): the account's one-second window, its pause after
// a 429, and a provider's limit to one address (Telegram's chat), against the real Redis.
import Redis from 'ioredis';
import { randomUUID } from 'node:crypto';
import { ProviderThrottle } from '@app/domain/channels/provider-throttle';
import { ManualClock } from '../support/clock';

describe('ProviderThrottle (Redis)', () => {
  let redis: Redis;
  let clock: ManualClock;
  let throttle: ProviderThrottle;
  // The middle of a second: the window does not roll over between two takes.
  const start = new Date(Date.UTC(2030, 0, 1, 12, 0, 0, 500));

  beforeAll(() => {
    redis = new Redis(process.env.REDIS_URL!);
  });
  afterAll(() => redis.disconnect());
  beforeEach(() => {
    clock = new ManualClock(start);
    throttle = new ProviderThrottle(redis, clock);
  });

  it('lets maxPerSecond sends through in a second, then answers the rest of that second', async () => {
    const account = randomUUID();
    const waits = [];
    for (let i = 0; i < 4; i++) waits.push(await throttle.take(account, 3));
    expect(waits).toEqual([0, 0, 0, 500]);
    clock.advance(500);
    expect(await throttle.take(account, 3)).toBe(0);
  });

  it("holds every send through a paused account for the pause's length", async () => {
    const account = randomUUID();
    await throttle.pause(account, 30_000);
    const wait = await throttle.take(account, 100);
    // The wait is what was left of the pause: at most its length, at least what is left after.
    const left = await redis.pttl(`chan:{${account}}:pause`);
    expect(left).toBeGreaterThan(0);
    expect(wait).toBeGreaterThanOrEqual(left);
    expect(wait).toBeLessThanOrEqual(30_000);
    // Nothing of the account's window was taken meanwhile: once the pause is over, sends go.
    await redis.del(`chan:{${account}}:pause`);
    expect(await throttle.take(account, 1)).toBe(0);
  });

  it("spaces one address's sends a second apart, however the seconds fall", async () => {
    const account = randomUUID();
    const chat = { index: randomUUID(), perSecond: 1 };
    const other = { index: randomUUID(), perSecond: 1 };
    expect(await throttle.take(account, 30, chat)).toBe(0);
    expect(await throttle.take(account, 30, chat)).toBe(1000);
    // Another chat of the same bot is not held back by the first one's limit.
    expect(await throttle.take(account, 30, other)).toBe(0);
    // A refused take did not spend the account's budget: 2 of 30 are spent, 28 remain.
    for (let i = 0; i < 28; i++) expect(await throttle.take(account, 30)).toBe(0);
    expect(await throttle.take(account, 30)).toBe(500);
    // The next second has begun, but the chat's last send was only 600 ms ago.
    clock.advance(600);
    expect(await throttle.take(account, 30, chat)).toBe(400);
    clock.advance(400);
    expect(await throttle.take(account, 30, chat)).toBe(0);
  });
});
