// The batcher: gathered calls, failures, linger and the last batches of a burst.
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

/** Lets the batches scheduled so far start: a batch starts on a later turn of the event loop. */
const turns = async () => {
  await new Promise((r) => setImmediate(r));
  await new Promise((r) => setImmediate(r));
};

describe(`${MicroBatcher.name} without runOne`, () => {
  it('sends a lone call at once and groups the calls made while a batch runs', async () => {
    const batches: number[][] = [];
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const b = new MicroBatcher<number, number>(
      async (items) => {
        batches.push(items);
        if (batches.length === 1) await gate;
        return items.map((i) => i * 10);
      },
      null,
      100,
      1,
    );
    const first = b.push(1);
    await turns();
    expect(batches).toEqual([[1]]);
    const rest = [2, 3, 4].map((i) => b.push(i));
    await turns();
    expect(batches).toEqual([[1]]);
    release();
    expect(await first).toBe(10);
    expect(await Promise.all(rest)).toEqual([20, 30, 40]);
    expect(batches).toEqual([[1], [2, 3, 4]]);
  });

  it('rejects every call of a failed batch', async () => {
    const b = new MicroBatcher<number, number>(async () => {
      throw new Error('down');
    }, null);
    const calls = [b.push(1), b.push(2)];
    await expect(calls[0]).rejects.toThrow('down');
    await expect(calls[1]).rejects.toThrow('down');
  });

  it('with a linger, waits for a fuller batch only while more calls are coming', async () => {
    const batches: number[][] = [];
    let more = true;
    const b = new MicroBatcher<number, number>(
      async (items) => {
        batches.push(items);
        return items.map((i) => i * 10);
      },
      null,
      100,
      1,
      { minBatch: 3, ms: 40, more: () => more },
    );
    const firstTwo = [1, 2].map((i) => b.push(i));
    await turns();
    expect(batches).toEqual([]);
    const third = b.push(3);
    await turns();
    expect(batches).toEqual([[1, 2, 3]]);
    expect(await Promise.all([...firstTwo, third])).toEqual([10, 20, 30]);

    // Fewer than minBatch: run when the linger ends.
    const started = Date.now();
    expect(await b.push(4)).toBe(40);
    expect(Date.now() - started).toBeGreaterThanOrEqual(30);
    expect(batches).toEqual([[1, 2, 3], [4]]);

    // Nothing more coming: a lone call goes at once (once the previous batch has ended).
    await turns();
    more = false;
    const lone = b.push(5);
    await turns();
    expect(batches).toEqual([[1, 2, 3], [4], [5]]);
    expect(await lone).toBe(50);
  });

  it('runs the last calls beside the batch under way only when nothing more is coming', async () => {
    const batches: number[][] = [];
    const gates: (() => void)[] = [];
    let more = true;
    const b = new MicroBatcher<number, number>(
      async (items) => {
        batches.push(items);
        await new Promise<void>((r) => gates.push(r));
        return items;
      },
      null,
      100,
      1,
      { minBatch: 1, ms: 40, more: () => more, lastFlushes: 2 },
    );
    const first = b.push(1);
    await turns();
    const second = b.push(2);
    await turns();
    // More coming: one batch at a time, the second call waits for the first batch.
    expect(batches).toEqual([[1]]);
    gates.shift()!();
    expect(await first).toBe(1);
    await turns();
    expect(batches).toEqual([[1], [2]]);
    // Nothing more coming: the last call goes at once, beside the batch under way.
    more = false;
    const last = b.push(3);
    await turns();
    expect(batches).toEqual([[1], [2], [3]]);
    // Never more than lastFlushes at once.
    const after = b.push(4);
    await turns();
    expect(batches).toEqual([[1], [2], [3]]);
    gates.shift()!();
    gates.shift()!();
    expect(await Promise.all([second, last])).toEqual([2, 3]);
    await turns();
    expect(batches).toEqual([[1], [2], [3], [4]]);
    gates.shift()!();
    expect(await after).toBe(4);
  });
});
