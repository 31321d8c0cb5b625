import { MicroBatcher } from './micro-batcher';

describe(MicroBatcher.name, () => {
  it('gathers concurrent calls into batches and answers each caller', async () => {
    const batches: number[][] = [];
    const b = new MicroBatcher<number, number>(
      async (items) => {
        batches.push(items);
        await new Promise((r) => setTimeout(r, 5));
        return items.map((i) => i * 2);
      },
      async (i) => {
        batches.push([i]);
        return i * 2;
      },
      64,
      1,
    );
    const out = await Promise.all(Array.from({ length: 10 }, (_, i) => b.push(i)));
    expect(out).toEqual([0, 2, 4, 6, 8, 10, 12, 14, 16, 18]);
    expect(batches.flat().sort((x, y) => x - y)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(batches.length).toBeLessThan(10);
  });

  it('retries a failed batch item by item, so only the bad item fails', async () => {
    const b = new MicroBatcher<number, number>(
      async () => {
        throw new Error('batch failed');
      },
      async (i) => {
        if (i === 3) throw new Error('bad item');
        return i;
      },
    );
    const results = await Promise.allSettled([1, 2, 3, 4].map((i) => b.push(i)));
    expect(results.map((r) => r.status)).toEqual([
      'fulfilled',
      'fulfilled',
      'rejected',
      'fulfilled',
    ]);
  });
});
