import { Logger } from '@nestjs/common';
import { claimPeriodMs, Periodic } from './periodic';

/** A task whose runs end when the test says so. */
function controlledTask() {
  const ends: (() => void)[] = [];
  let started = 0;
  const task = () => {
    started += 1;
    return new Promise<void>((resolve) => ends.push(resolve));
  };
  return { task, started: () => started, endRun: () => ends.shift()?.() };
}

const quiet = { warn: () => undefined } as unknown as Logger;
const settle = () => new Promise((r) => setImmediate(r));

describe(Periodic.name, () => {
  it('joins a run under way instead of starting another', async () => {
    const t = controlledTask();
    const p = new Periodic('task', quiet, t.task);
    const first = p.run();
    const second = p.run();
    expect(second).toBe(first);
    t.endRun();
    await first;
    expect(t.started()).toBe(1);
  });

  it('runAfter starts one more run once the one under way ends, shared by the calls meanwhile', async () => {
    const t = controlledTask();
    const p = new Periodic('task', quiet, t.task);
    const first = p.run();
    const a = p.runAfter();
    const b = p.runAfter();
    expect(b).toBe(a);
    expect(t.started()).toBe(1);
    t.endRun();
    await first;
    await settle();
    expect(t.started()).toBe(2);
    let done = false;
    void a.then(() => (done = true));
    await settle();
    expect(done).toBe(false);
    t.endRun();
    await a;
    expect(t.started()).toBe(2);
  });

  it('runAfter with nothing under way is a run', async () => {
    const t = controlledTask();
    const p = new Periodic('task', quiet, t.task);
    const run = p.runAfter();
    expect(t.started()).toBe(1);
    t.endRun();
    await run;
  });

  it('logs a failed run and resolves', async () => {
    const warn = jest.fn();
    const p = new Periodic('the task', { warn } as unknown as Logger, () =>
      Promise.reject(new Error('boom')),
    );
    await p.run();
    expect(warn).toHaveBeenCalledWith({ msg: 'the task failed', err: 'boom' });
  });

  it('runs the task only when the claim answers true', async () => {
    let runs = 0;
    const p = new Periodic('task', quiet, () => Promise.resolve((runs += 1)));
    await p.run(() => Promise.resolve(false));
    expect(runs).toBe(0);
    await p.run(() => Promise.resolve(true));
    await p.run();
    expect(runs).toBe(2);
  });

  it('asks no claim when joining a run under way', async () => {
    const t = controlledTask();
    const p = new Periodic('task', quiet, t.task);
    const claim = jest.fn(() => Promise.resolve(true));
    const first = p.run();
    expect(p.run(claim)).toBe(first);
    t.endRun();
    await first;
    expect(claim).not.toHaveBeenCalled();
  });

  it('logs a failed claim as a failed run', async () => {
    const warn = jest.fn();
    const p = new Periodic('the task', { warn } as unknown as Logger, () => Promise.resolve());
    await p.run(() => Promise.reject(new Error('database down')));
    expect(warn).toHaveBeenCalledWith({ msg: 'the task failed', err: 'database down' });
  });
});

describe(claimPeriodMs.name, () => {
  it("is a tenth shorter than the interval, so that the winner's next tick is never refused", () => {
    expect(claimPeriodMs(60_000)).toBe(54_000);
    expect(claimPeriodMs(10)).toBe(9);
  });
});
