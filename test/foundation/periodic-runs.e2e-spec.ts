// Cluster-wide periodic tasks: two replicas of one task, each with its own connection pool to the
// one database, run it once per period whatever their ticks; a direct run is never refused.
import { Injectable, Logger } from '@nestjs/common';
import { Test, TestingModule } from '@nestjs/testing';
import { hostname } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { DataSource } from 'typeorm';
import {
  AppConfigModule,
  claimPeriodMs,
  DatabaseModule,
  PeriodicModule,
  PeriodicTask,
  setLogSink,
} from '@app/domain';
import { PeriodicRunRepository } from '@app/domain/common/periodic-run.repository';
import { testLogger } from '../support/app';

const INTERVAL_MS = 300;

/** Every run of a CountedTask, by replica, in start order. */
const runs: { replica: number; at: number }[] = [];
let replicas = 0;

@Injectable()
class CountedTask extends PeriodicTask {
  protected readonly scope = 'cluster';
  protected readonly runAtStart = true;
  readonly replica = ++replicas;

  protected intervalMs(): number {
    return INTERVAL_MS;
  }

  protected run(): Promise<unknown> {
    runs.push({ replica: this.replica, at: performance.now() });
    return Promise.resolve();
  }
}

/** One replica: its own Nest context and database pool; its timer starts with `init()`. */
function replica(): Promise<TestingModule> {
  return Test.createTestingModule({
    imports: [AppConfigModule, DatabaseModule.forRoot(), PeriodicModule],
    providers: [CountedTask],
  })
    .setLogger(testLogger('periodic-test'))
    .compile();
}

describe('periodic runs across replicas', () => {
  let a: TestingModule;
  let b: TestingModule;

  beforeEach(async () => {
    runs.length = 0;
    [a, b] = await Promise.all([replica(), replica()]);
    await a.get(DataSource).query(`DELETE FROM periodic_runs`);
  });

  afterEach(async () => {
    await Promise.all([a.close(), b.close()]);
  });

  it('grants one claim per period among many concurrent ticks, and one again after it', async () => {
    const tick = (m: TestingModule) =>
      m.get(PeriodicRunRepository).claim('claim-test', 1000, `replica ${m === a ? 'a' : 'b'}`);
    const ticks = () =>
      Promise.all([a, b].flatMap((m) => Array.from({ length: 20 }, () => tick(m))));
    const granted = async () => (await ticks()).filter(Boolean).length;

    expect(await granted()).toBe(1);
    expect(await granted()).toBe(0);
    await sleep(1100);
    expect(await granted()).toBe(1);
    expect(await granted()).toBe(0);
  });

  it("runs the task once per period on one replica or the other, as the timers' ticks race", async () => {
    const lines: Record<string, unknown>[] = [];
    setLogSink((line) => lines.push(JSON.parse(line) as Record<string, unknown>));
    Logger.overrideLogger(testLogger('periodic-test', 'debug'));
    await Promise.all([a.init(), b.init()]);
    const started = performance.now();
    await sleep(INTERVAL_MS * 6 + INTERVAL_MS / 2);
    const elapsed = performance.now() - started;
    const seen = [...runs];
    Logger.overrideLogger(testLogger('periodic-test'));
    setLogSink((line) => process.stdout.write(line + '\n'));

    // Each replica ticked at the start and once per interval: one run per tick of either.
    const periods = Math.floor(elapsed / INTERVAL_MS) + 1;
    expect(seen.length).toBeGreaterThanOrEqual(periods - 1);
    expect(seen.length).toBeLessThanOrEqual(periods);
    // Never two runs within one period (a run starts a few ms after its claim).
    for (let i = 1; i < seen.length; i++)
      expect(seen[i].at - seen[i - 1].at).toBeGreaterThan(claimPeriodMs(INTERVAL_MS) - 50);
    // One info line per run, saying which replica ran it; a refused tick is a debug line.
    const replicaId = `${hostname()}:${process.pid}`;
    const ran = lines.filter((l) => l.msg === 'CountedTask ran');
    expect(ran).toHaveLength(seen.length);
    for (const l of ran)
      expect(l).toMatchObject({ level: 'info', scope: 'cluster', replica: replicaId });
    const skipped = lines.filter((l) => l.msg === 'CountedTask skipped');
    expect(skipped.length).toBeGreaterThan(0);
    for (const l of skipped) expect(l).toMatchObject({ level: 'debug', scope: 'cluster' });
  });

  it('runs on a direct call even when another replica holds the period', async () => {
    expect(await a.get(PeriodicRunRepository).claim(CountedTask.name, 60_000, 'replica a')).toBe(
      true,
    );
    await Promise.all([a.get(CountedTask).runNow(), b.get(CountedTask).runNow()]);
    expect(runs.map((r) => r.replica).sort()).toEqual(
      [a.get(CountedTask).replica, b.get(CountedTask).replica].sort(),
    );
  });
});
