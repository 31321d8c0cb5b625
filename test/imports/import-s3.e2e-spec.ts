// Imports on an S3 object store (STORAGE_URL=s3://…, §18): s3rver on loopback stands in for S3.
// Upload, processing and the errors file go through the bucket; what is stored there is encrypted;
// a worker killed mid-import resumes from its checkpoint with its errors file exact; a delete
// removes the import's objects.
import { GetObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { TestingModule } from '@nestjs/testing';
import type { ChildProcess } from 'node:child_process';
import { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import { DataSource } from 'typeorm';
import { ObjectStore } from '@app/domain';
import { createTestApp } from '../support/app';
import { startS3Server, S3Server } from '../support/s3-server';
import { waitFor } from '../support/wait-for';
import { createSession, Session } from '../support/session';
import {
  downloadErrors,
  exited,
  getImport,
  IMPORTS,
  INestApplication,
  line,
  spawnImportWorker,
  start,
  startInProcessWorker,
  upload,
  waitForImport,
} from './imports-support';

const BUCKET = 'mp-imports';
const PREFIX = 'e2e';
/** Small batches and a short lease: a run is caught mid-file, and a dead one seen fast. */
const SMALL_BATCHES = { IMPORT_LEASE_SECONDS: '2', IMPORT_BATCH_SIZE: '100' };

const MAP = [
  { csvHeader: 'email', serviceField: 'email' },
  { csvHeader: 'status', serviceField: 'status' },
];

/** `rows` contacts; every `badEvery`th has an invalid status. */
function csv(rows: number, tag: string, badEvery = 0): string {
  let out = line(['email', 'status']);
  for (let i = 1; i <= rows; i++)
    out += line([`p${i}@${tag}.test`, badEvery && i % badEvery === 0 ? 'deleted' : 'active']);
  return out;
}

describe('Contact imports on an S3 object store', () => {
  let store: S3Server;
  let s3: S3Client;
  let app: INestApplication;
  let s: Session;
  const workers: ChildProcess[] = [];

  /** The keys stored under an import (relative to the bucket). */
  const keysOf = async (id: string) => {
    const res = await s3.send(
      new ListObjectsV2Command({ Bucket: BUCKET, Prefix: `${PREFIX}/imports/${s.org.id}/${id}/` }),
    );
    return (res.Contents ?? []).map((o) => o.Key!.split('/').slice(4).join('/')).sort();
  };
  const raw = async (key: string) =>
    buffer(
      (await s3.send(new GetObjectCommand({ Bucket: BUCKET, Key: `${PREFIX}/${key}` })))
        .Body as Readable,
    );

  beforeAll(async () => {
    store = await startS3Server(BUCKET, PREFIX);
    Object.assign(process.env, store.env);
    s3 = new S3Client({
      endpoint: store.endpoint,
      region: 'us-east-1',
      forcePathStyle: true,
      credentials: {
        accessKeyId: store.env.AWS_ACCESS_KEY_ID,
        secretAccessKey: store.env.AWS_SECRET_ACCESS_KEY,
      },
    });
    app = await createTestApp();
    s = await createSession(app);
  });

  afterAll(async () => {
    for (const w of workers) if (w.exitCode === null && w.signalCode === null) w.kill('SIGKILL');
    await Promise.all(workers.map(exited));
    await app?.close();
    s3?.destroy();
    await store?.stop();
  });

  it('uploads, processes and serves the errors file from the bucket, encrypted there', async () => {
    const worker: TestingModule = await startInProcessWorker();
    try {
      const up = await upload(s, csv(50, 'small', 10));
      expect(await keysOf(up.import.id)).toEqual(['source.csv']);
      const stored = await raw(up.import.filePath as string);
      expect(stored.includes(Buffer.from('p1@small.test'))).toBe(false);
      expect(up.preview.rows[0]).toEqual(['p1@small.test', 'active']);

      await start(s, up.import.id, { fieldMappings: MAP, allowPartialUpload: true });
      const done = await waitForImport(s, up.import.id);
      expect(done).toMatchObject({
        status: 'completed_with_errors',
        successCount: 45,
        errorCount: 5,
        errorsFilePath: `imports/${s.org.id}/${up.import.id}/errors.csv`,
      });
      const errors = await downloadErrors(s, up.import.id);
      expect(errors.status).toBe(200);
      expect(errors.rows.map((r) => r[0])).toEqual([
        'email',
        ...[10, 20, 30, 40, 50].map((i) => `p${i}@small.test`),
      ]);
      // The source and the run's parts are gone; the errors file is stored encrypted.
      await waitForImport(s, up.import.id, { until: () => true });
      expect(await keysOf(up.import.id)).toEqual(['errors.csv']);
      expect((await raw(done.errorsFilePath!)).includes(Buffer.from('p10@small.test'))).toBe(false);

      expect((await s.http.delete(`${IMPORTS}/${up.import.id}`)).status).toBe(200);
      expect(await keysOf(up.import.id)).toEqual([]);
    } finally {
      await worker.close();
    }
  });

  it('stores a large file in a multipart upload and reads it from an offset', async () => {
    const store = app.get(ObjectStore);
    const key = `imports/${s.org.id}/incoming/large.part`;
    // 20 MiB of distinct bytes: three parts of the multipart upload, 320 segments.
    const block = Buffer.alloc(1024 * 1024);
    const blocks = Array.from({ length: 20 }, (_, i) => Buffer.from(block.fill(i + 1)));
    await store.write(key, Readable.from(blocks));
    expect(await store.size(key)).toBe(20 * 1024 * 1024);
    const at = 7 * 1024 * 1024 + 12_345;
    const tail = await buffer(await store.read(key, { start: at, end: at + 100_000 }));
    expect(tail.equals(Buffer.concat(blocks).subarray(at, at + 100_000))).toBe(true);
    await store.delete(key);

    // A body that fails midway (a refused upload) rejects with its own error and stores nothing.
    async function* refused() {
      yield* blocks.slice(0, 10);
      throw new Error('refused midway');
    }
    await expect(store.write(key, Readable.from(refused()))).rejects.toThrow('refused midway');
    expect(await store.size(key)).toBeNull();
  });

  it('a worker killed mid-import resumes from its checkpoint; the errors file stays exact', async () => {
    const ROWS = 8_000;
    const up = await upload(s, csv(ROWS, 'crash', 7), 'crash.csv');
    await start(s, up.import.id, { fieldMappings: MAP, allowPartialUpload: true });
    const first = spawnImportWorker(SMALL_BATCHES);
    workers.push(first);
    await waitForImport(s, up.import.id, {
      timeoutMs: 40_000,
      everyMs: 50,
      until: (i) => i.processedRows >= ROWS * 0.2,
    });
    first.kill('SIGKILL');
    await exited(first);
    const atKill = await getImport(s, up.import.id);
    expect(atKill.processedRows).toBeLessThan(ROWS);

    // What a batch that did not commit may leave: a part past the committed length.
    const [{ bytes }] = await app.get(DataSource).query(
      `SELECT errors_file_bytes AS bytes FROM contact_imports
          WHERE id = $1 AND organization_id = $2`,
      [up.import.id, s.org.id],
    );
    const errorsDir = `imports/${s.org.id}/${up.import.id}/errors/`;
    await app
      .get(ObjectStore)
      .write(`${errorsDir}${bytes.padStart(12, '0')}.csv`, Readable.from(['stray,line\r\n']));

    const second = spawnImportWorker(SMALL_BATCHES);
    workers.push(second);
    const done = await waitForImport(s, up.import.id, { timeoutMs: 60_000, everyMs: 250 });
    const invalid = Math.floor(ROWS / 7);
    expect(done).toMatchObject({
      status: 'completed_with_errors',
      processedRows: ROWS,
      errorCount: invalid,
      successCount: ROWS - invalid,
      newCount: ROWS - invalid,
    });
    const errors = await downloadErrors(s, up.import.id);
    expect(errors.text).not.toContain('stray');
    expect(errors.rows.slice(1).map((r) => Number(r[2]))).toEqual(
      Array.from({ length: invalid }, (_, i) => (i + 1) * 7),
    );
    expect(errors.rows[0]).toEqual(['email', 'status', 'row', 'error']);
  }, 120_000);

  it('an S3 outage mid-import hands the run back; it completes, exact, once the store answers', async () => {
    const ROWS = 8_000;
    const up = await upload(s, csv(ROWS, 'outage', 9), 'outage.csv');
    await start(s, up.import.id, { fieldMappings: MAP, allowPartialUpload: true });
    const logged: string[] = [];
    const worker = spawnImportWorker(SMALL_BATCHES, logged);
    workers.push(worker);
    await waitForImport(s, up.import.id, {
      timeoutMs: 40_000,
      everyMs: 50,
      until: (i) => i.processedRows >= ROWS * 0.2,
    });
    await store.pause();
    try {
      await waitFor(
        () => logged.join('').includes('import run handed back: a store is unavailable'),
        {
          what: 'the run to meet the outage',
          timeoutMs: 20_000,
        },
      );
      // Not failed: handed back for another run.
      expect((await getImport(s, up.import.id)).status).toMatch(/^(queued|processing)$/);
    } finally {
      await store.resume();
    }
    const done = await waitForImport(s, up.import.id, { timeoutMs: 60_000, everyMs: 250 });
    const invalid = Math.floor(ROWS / 9);
    expect(done).toMatchObject({
      status: 'completed_with_errors',
      processedRows: ROWS,
      errorCount: invalid,
      newCount: ROWS - invalid,
    });
    const errors = await downloadErrors(s, up.import.id);
    expect(errors.rows).toHaveLength(invalid + 1);
  }, 120_000);
});
