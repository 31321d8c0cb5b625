import { Batcher, Semaphore } from './flow-control';

describe(Batcher.name, () => {
  it('sends a lone call at once and groups the calls made while a flush runs', async () => {
    const batches: number[][] = [];
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const b = new Batcher<number, number>(
      async (items) => {
        batches.push(items);
        if (batches.length === 1) await gate;
        return items.map((i) => i * 10);
      },
      100,
      1,
    );
    const first = b.submit(1);
    const rest = [2, 3, 4].map((i) => b.submit(i));
    expect(batches).toEqual([[1]]);
    release();
    expect(await first).toBe(10);
    expect(await Promise.all(rest)).toEqual([20, 30, 40]);
    expect(batches).toEqual([[1], [2, 3, 4]]);
  });

  it('rejects every call of a failed flush', async () => {
    const b = new Batcher<number, number>(async () => {
      throw new Error('down');
    });
    await expect(b.submit(1)).rejects.toThrow('down');
  });

  it('with a linger, waits for a fuller batch only while more calls are coming', async () => {
    const batches: number[][] = [];
    let more = true;
    const b = new Batcher<number, number>(
      async (items) => {
        batches.push(items);
        return items.map((i) => i * 10);
      },
      100,
      1,
      { minBatch: 3, ms: 40, more: () => more },
    );
    const firstTwo = [1, 2].map((i) => b.submit(i));
    expect(batches).toEqual([]);
    const third = b.submit(3);
    expect(batches).toEqual([[1, 2, 3]]);
    expect(await Promise.all([...firstTwo, third])).toEqual([10, 20, 30]);

    // Fewer than minBatch: flushed when the linger ends.
    const started = Date.now();
    expect(await b.submit(4)).toBe(40);
    expect(Date.now() - started).toBeGreaterThanOrEqual(30);
    expect(batches).toEqual([[1, 2, 3], [4]]);

    // Nothing more coming: a lone call goes at once (once the previous flush has ended).
    await new Promise((r) => setImmediate(r));
    more = false;
    const lone = b.submit(5);
    expect(batches).toEqual([[1, 2, 3], [4], [5]]);
    expect(await lone).toBe(50);
  });
});

describe(`${Batcher.name} with lastFlushes`, () => {
  it('flushes the last calls beside the statement under way only when nothing more is coming', async () => {
    const batches: number[][] = [];
    const gates: (() => void)[] = [];
    let more = true;
    const b = new Batcher<number, number>(
      async (items) => {
        batches.push(items);
        await new Promise<void>((r) => gates.push(r));
        return items;
      },
      100,
      1,
      { minBatch: 1, ms: 40, more: () => more, lastFlushes: 2 },
    );
    const first = b.submit(1);
    const second = b.submit(2);
    // More coming: one statement at a time, the second call waits for the first flush.
    expect(batches).toEqual([[1]]);
    gates.shift()!();
    expect(await first).toBe(1);
    await new Promise((r) => setImmediate(r));
    expect(batches).toEqual([[1], [2]]);
    // Nothing more coming: the last call goes at once, beside the statement under way.
    more = false;
    const last = b.submit(3);
    expect(batches).toEqual([[1], [2], [3]]);
    // Never more than lastFlushes at once.
    const after = b.submit(4);
    expect(batches).toEqual([[1], [2], [3]]);
    gates.shift()!();
    gates.shift()!();
    expect(await Promise.all([second, last])).toEqual([2, 3]);
    await new Promise((r) => setImmediate(r));
    expect(batches).toEqual([[1], [2], [3], [4]]);
    gates.shift()!();
    expect(await after).toBe(4);
  });
});

describe(Semaphore.name, () => {
  it('holds at most size slots and hands them over in order', async () => {
    const s = new Semaphore(2);
    await s.acquire();
    expect(s.tryAcquire(5)).toBe(1);
    expect(s.inUse).toBe(2);
    const order: number[] = [];
    const a = s.acquire().then(() => order.push(1));
    const c = s.acquire().then(() => order.push(2));
    expect(s.tryAcquire(1)).toBe(0);
    s.release();
    s.release();
    await Promise.all([a, c]);
    expect(order).toEqual([1, 2]);
    expect(s.inUse).toBe(2);
    s.release();
    s.release();
    expect(s.inUse).toBe(0);
  });
});
