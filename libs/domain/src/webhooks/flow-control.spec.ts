// The dispatcher's request slots.
import { Semaphore } from './flow-control';

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
