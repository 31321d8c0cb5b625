// Acceptance 3 (issue 5): a real worker PROCESS is killed with SIGKILL in the middle of a
// 200,000-row import; a new worker process takes the import over (its sweeper sees the dead
// worker's heartbeat expire), resumes after the last committed batch, and the import ends
// `completed` with exact counters and no contact written twice. (Two columns and no list keep the
// test near a minute on a 2-core machine; test 1 covers memberships and tags.)
import { INestApplication } from '@nestjs/common';
import type { ChildProcess } from 'node:child_process';
import { DataSource } from 'typeorm';
import { createTestApp } from '../support/app';
import { createSession, Session } from '../support/session';
import {
  exited,
  getImport,
  spawnImportWorker,
  start,
  upload,
  waitForImport,
} from './imports-support';
import { holdsFor } from '../support/wait-for';

const ROWS = 200_000;

describe('Contact import: a worker killed mid-import', () => {
  let app: INestApplication;
  let s: Session;
  let ds: DataSource;
  const workers: ChildProcess[] = [];

  beforeAll(async () => {
    app = await createTestApp();
    s = await createSession(app);
    ds = app.get(DataSource);
  });

  afterAll(async () => {
    for (const w of workers) if (w.exitCode === null && w.signalCode === null) w.kill('SIGKILL');
    await Promise.all(workers.map(exited));
    await app.close();
  });

  it('resumes in a new worker process and ends completed with exact counters', async () => {
    // 1 % of the rows repeat the previous row's email: duplicates must stay exact across the crash.
    const lines = ['email,first_name'];
    let duplicates = 0;
    for (let i = 1; i <= ROWS; i++) {
      if (i % 100 === 50) {
        lines.push(`crash${i - 1}@import.test,Again${i}`);
        duplicates++;
      } else lines.push(`crash${i}@import.test,Name${i}`);
    }
    const up = await upload(s, lines.join('\n') + '\n', 'big.csv');
    await start(s, up.import.id, {
      fieldMappings: [
        { csvHeader: 'email', serviceField: 'email' },
        { csvHeader: 'first_name', serviceField: 'firstName' },
      ],
      allowPartialUpload: true,
    });

    const first = spawnImportWorker();
    workers.push(first);
    const mid = await waitForImport(s, up.import.id, {
      timeoutMs: 60_000,
      everyMs: 50,
      until: (i) => i.processedRows >= ROWS * 0.2,
    });
    first.kill('SIGKILL');
    expect(await exited(first)).toBe('SIGKILL');
    const killedAt = new Date();
    const atKill = await getImport(s, up.import.id);
    expect(atKill.status).toBe('processing');
    expect(atKill.processedRows).toBeGreaterThanOrEqual(mid.processedRows);
    expect(atKill.processedRows).toBeLessThan(ROWS);
    // Nothing moves while no worker runs: the killed worker's uncommitted batch is gone.
    await holdsFor(
      async () =>
        expect((await getImport(s, up.import.id)).processedRows).toBe(atKill.processedRows),
      { everyMs: 100 },
    );

    const second = spawnImportWorker();
    workers.push(second);
    const done = await waitForImport(s, up.import.id, { timeoutMs: 120_000, everyMs: 250 });

    expect(done).toMatchObject({
      status: 'completed',
      totalRows: ROWS,
      processedRows: ROWS,
      successCount: ROWS,
      errorCount: 0,
      newCount: ROWS - duplicates,
      duplicateCount: duplicates,
      errorsFilePath: null,
    });
    const [row] = await ds.query(
      `SELECT attempts, checkpoint_row FROM contact_imports WHERE id = $1`,
      [up.import.id],
    );
    expect(row.attempts).toBeGreaterThanOrEqual(2);
    expect(row.checkpoint_row).toBe(ROWS);

    const [{ contacts, emails, distinct }] = await ds.query(
      `SELECT (SELECT count(*)::int FROM contacts WHERE organization_id = $1) AS contacts,
              count(*)::int AS emails, count(DISTINCT email_hash)::int AS distinct
         FROM contact_emails WHERE organization_id = $1`,
      [s.org.id],
    );
    expect(contacts).toBe(ROWS - duplicates);
    expect(emails).toBe(contacts);
    expect(distinct).toBe(contacts);
    // Resumed, not restarted: the contacts the first worker committed are still the ones it wrote.
    const [{ before }] = await ds.query(
      `SELECT count(*)::int AS before FROM contacts WHERE organization_id = $1 AND created_at < $2`,
      [s.org.id, killedAt],
    );
    expect(before).toBe(atKill.newCount);
  }, 180_000);
});
