import { Logger } from '@nestjs/common';
import { Periodic } from './periodic';

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
});
