import { contactEventRetryDelayMs } from './contact-events';

describe(contactEventRetryDelayMs.name, () => {
  it('waits 5 s after the first failure, doubling up to 10 minutes, and never gives up', () => {
    expect([1, 2, 3, 4, 5, 6, 7, 8].map(contactEventRetryDelayMs)).toEqual([
      5_000, 10_000, 20_000, 40_000, 80_000, 160_000, 320_000, 600_000,
    ]);
    expect(contactEventRetryDelayMs(1000)).toBe(600_000);
  });
});
