// What an import leaves on disk (§16): files 0600 in 0700 folders, the source removed once the
// import ends, drafts and old errors files removed by the worker's housekeeping, and the
// organization's storage quota enforced while the upload streams.
import { INestApplication } from '@nestjs/common';
import { TestingModule } from '@nestjs/testing';
import { existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { DataSource } from 'typeorm';
import { APP_CONFIG, ImportFilesSweeper, ImportUploads, loadConfig } from '@app/domain';
import { ImportsHousekeeping } from '../../apps/worker/src/imports/imports-housekeeping';
import { createTestApp } from '../support/app';
import { holdsFor, waitFor } from '../support/wait-for';
import { createSession, Session } from '../support/session';
import {
  getImport,
  IMPORTS,
  line,
  start,
  startInProcessWorker,
  upload,
  uploadRaw,
  waitForImport,
} from './imports-support';

/** The folder of the file:// object store (STORAGE_URL's default, under DATA_DIR). */
const FILES = (loadConfig().storage as { root: string }).root;
const abs = (relative: string) => join(FILES, relative);
const modeOf = (path: string) => statSync(path).mode & 0o777;
const orgDir = (s: Session) => join(FILES, 'imports', s.org.id);

/**
 * Until `path` is gone: the worker removes an import's source right after it commits the final
 * status, which a poll can see first.
 */
const gone = (path: string) =>
  waitFor(() => !existsSync(path), { what: `${path} to be removed`, timeoutMs: 5000 });

const MAP = [
  { csvHeader: 'email', serviceField: 'email' },
  { csvHeader: 'status', serviceField: 'status' },
];

/** `rows` contacts, the `bad`th with an invalid status. */
function csv(rows: number, tag: string, bad = 0): string {
  let out = line(['email', 'status']);
  for (let i = 1; i <= rows; i++)
    out += line([`f${i}@${tag}.test`, i === bad ? 'deleted' : 'active']);
  return out;
}

/** A CSV of about `bytes` bytes (one column of padded emails). */
function csvOfSize(bytes: number, tag: string): string {
  let out = line(['email', 'status']);
  for (let i = 1; out.length < bytes; i++) out += line([`${'x'.repeat(40)}${i}@${tag}.test`, 'a']);
  return out;
}

describe('Import files on disk', () => {
  let app: INestApplication;
  let worker: TestingModule;
  let ds: DataSource;

  beforeAll(async () => {
    app = await createTestApp();
    worker = await startInProcessWorker();
    ds = app.get(DataSource);
  });
  afterAll(async () => {
    await worker.close();
    await app.close();
  });

  async function session(): Promise<Session> {
    const s = await createSession(app);
    return s;
  }

  it('stores the upload with mode 0600 in folders with mode 0700', async () => {
    const s = await session();
    const up = await upload(s, csv(3, 'mode'));
    const source = abs(up.import.filePath as string);
    expect(modeOf(source)).toBe(0o600);
    expect(modeOf(join(source, '..'))).toBe(0o700);
    expect(modeOf(orgDir(s))).toBe(0o700);
    expect(modeOf(join(orgDir(s), 'incoming'))).toBe(0o700);
    expect(modeOf(join(FILES, 'imports'))).toBe(0o700);
  });

  it('removes the source when the import completes; the errors file stays, 0600', async () => {
    const s = await session();
    const up = await upload(s, csv(20, 'done', 7));
    const source = abs(up.import.filePath as string);
    await start(s, up.import.id, { fieldMappings: MAP, allowPartialUpload: true });
    const done = await waitForImport(s, up.import.id);
    expect(done).toMatchObject({ status: 'completed_with_errors', errorCount: 1 });
    await gone(source);
    const errors = abs(done.errorsFilePath!);
    expect(modeOf(errors)).toBe(0o600);
    expect((await s.http.get(`${IMPORTS}/${up.import.id}/errors`)).status).toBe(200);

    const clean = await upload(s, csv(5, 'clean'));
    await start(s, clean.import.id, { fieldMappings: MAP });
    expect(await waitForImport(s, clean.import.id)).toMatchObject({ status: 'completed' });
    // No errors file to keep: the import's folder goes with the source.
    await gone(join(orgDir(s), clean.import.id));
  });

  it('removes the source of a failed import and keeps its errors file, 0600', async () => {
    const s = await session();
    const up = await upload(s, csv(20, 'failed', 3));
    await start(s, up.import.id, { fieldMappings: MAP, allowPartialUpload: false });
    const done = await waitForImport(s, up.import.id);
    expect(done.status).toBe('failed');
    await gone(abs(up.import.filePath as string));
    expect(modeOf(abs(done.errorsFilePath!))).toBe(0o600);
  });

  it('removes the source of a cancelled import', async () => {
    const s = await session();
    const up = await upload(s, csv(20_000, 'cancel'));
    await start(s, up.import.id, { fieldMappings: MAP });
    const res = await s.http.post(`${IMPORTS}/${up.import.id}/cancel`);
    expect(res.status).toBe(200);
    expect(existsSync(abs(up.import.filePath as string))).toBe(false);
    // Whatever the worker was doing ends without bringing a file back.
    await holdsFor(() => expect(existsSync(abs(up.import.filePath as string))).toBe(false), {
      forMs: 1500,
    });
  });

  describe('housekeeping (the worker task, run on demand)', () => {
    const housekeeping = () => worker.get(ImportsHousekeeping).runNow();

    it('deletes a draft not started within 24 hours, row and file; a younger one stays', async () => {
      const s = await session();
      const old = await upload(s, csv(3, 'old'));
      const young = await upload(s, csv(3, 'young'));
      await ds.query(
        `UPDATE contact_imports SET created_at = now() - interval '24 hours 1 minute'
          WHERE id = $1 AND organization_id = $2`,
        [old.import.id, s.org.id],
      );
      // The worker's task, and beside it a second worker's pass: rows claimed once, neither fails.
      await Promise.all([housekeeping(), worker.get(ImportFilesSweeper).housekeeping()]);
      expect((await s.http.get(`${IMPORTS}/${old.import.id}`)).status).toBe(404);
      expect(existsSync(join(orgDir(s), old.import.id))).toBe(false);
      expect((await getImport(s, young.import.id)).status).toBe('uploaded');
      expect(existsSync(abs(young.import.filePath as string))).toBe(true);
      await housekeeping();
      expect((await getImport(s, young.import.id)).status).toBe('uploaded');
    });

    it('deletes an errors file 30 days after the import ended', async () => {
      const s = await session();
      const up = await upload(s, csv(10, 'aged', 2));
      await start(s, up.import.id, { fieldMappings: MAP, allowPartialUpload: true });
      const done = await waitForImport(s, up.import.id);
      const errors = abs(done.errorsFilePath!);
      await housekeeping();
      expect(existsSync(errors)).toBe(true);
      await ds.query(
        `UPDATE contact_imports SET completed_at = now() - interval '30 days 1 minute'
          WHERE id = $1 AND organization_id = $2`,
        [up.import.id, s.org.id],
      );
      await housekeeping();
      expect(existsSync(errors)).toBe(false);
      expect(existsSync(join(orgDir(s), up.import.id))).toBe(false);
      const after = await getImport(s, up.import.id);
      expect(after).toMatchObject({ status: 'completed_with_errors', errorsFilePath: null });
      expect((await s.http.get(`${IMPORTS}/${up.import.id}/errors`)).status).toBe(404);
    });

    it('removes a finished import’s source left behind (a worker stopped before removing it)', async () => {
      const s = await session();
      const up = await upload(s, csv(3, 'left'));
      await start(s, up.import.id, { fieldMappings: MAP });
      await waitForImport(s, up.import.id);
      const source = abs(up.import.filePath as string);
      mkdirSync(join(source, '..'), { recursive: true });
      writeFileSync(source, 'email\nleft@behind.test\n', { mode: 0o600 });
      await ds.query(
        `UPDATE contact_imports SET source_removed_at = NULL WHERE id = $1 AND organization_id = $2`,
        [up.import.id, s.org.id],
      );
      await housekeeping();
      expect(existsSync(source)).toBe(false);
    });
  });
});

describe('Import storage quota', () => {
  const QUOTA = 200_000;
  let app: INestApplication;
  let ds: DataSource;

  beforeAll(async () => {
    const base = loadConfig();
    const config = { ...base, imports: { ...base.imports, storageQuotaBytes: QUOTA } };
    app = await createTestApp({ override: (b) => b.overrideProvider(APP_CONFIG).useValue(config) });
    ds = app.get(DataSource);
  });
  afterAll(async () => {
    await app.close();
  });

  async function session(): Promise<Session> {
    const s = await createSession(app);
    return s;
  }
  const leftovers = async (s: Session) => ({
    incoming: readdirSync(join(orgDir(s), 'incoming')),
    folders: readdirSync(orgDir(s)).filter((f) => f !== 'incoming'),
    reservations: (
      (await ds.query(
        `SELECT count(*)::int AS n FROM import_upload_reservations WHERE organization_id = $1`,
        [s.org.id],
      )) as { n: number }[]
    )[0].n,
  });

  function expectQuotaRefusal(res: { status: number; body: Record<string, unknown> }) {
    expect(res.status).toBe(413);
    expect(res.body).toMatchObject({
      success: false,
      code: 'E_VALIDATION_ERROR',
      errors: [{ field: 'file', rule: 'max', message: expect.stringMatching(/quota/) }],
    });
  }

  it('refuses an upload over the quota with 413 on `file`, leaving no file behind', async () => {
    const s = await session();
    const res = await uploadRaw(s, csvOfSize(QUOTA + 50_000, 'over'));
    expectQuotaRefusal(res);
    expect(await leftovers(s)).toEqual({ incoming: [], folders: [], reservations: 0 });
  });

  it('counts the files the organization already holds; deleting an import frees its share', async () => {
    const s = await session();
    const first = await upload(s, csvOfSize(120_000, 'first'));
    expectQuotaRefusal(await uploadRaw(s, csvOfSize(120_000, 'second')));
    expect((await leftovers(s)).folders).toEqual([first.import.id]);
    expect((await s.http.delete(`${IMPORTS}/${first.import.id}`)).status).toBe(200);
    await upload(s, csvOfSize(120_000, 'third'));
  });

  it('concurrent uploads cannot together pass the quota', async () => {
    const s = await session();
    const all = await Promise.all(
      ['a', 'b', 'c', 'd'].map((t) => uploadRaw(s, csvOfSize(120_000, `par${t}`))),
    );
    expect(all.map((r) => r.status).sort()).toEqual([201, 413, 413, 413]);
    for (const r of all.filter((x) => x.status === 413)) expectQuotaRefusal(r);
    const left = await leftovers(s);
    expect(left.incoming).toEqual([]);
    expect(left.folders).toHaveLength(1);
    expect(left.reservations).toBe(0);
  });

  it('reservations taken at the same instant are granted one at a time', async () => {
    const s = await session();
    const uploads = app.get(ImportUploads);
    const streams = [1, 2, 3, 4].map(() => new PassThrough());
    const pending = streams.map((stream) => uploads.receive(s.org.id, stream));
    // Once every upload has its file open and waits for data, the four first chunks arrive in
    // the same tick: the four reservations start together.
    await waitFor(() => readdirSync(join(orgDir(s), 'incoming')).length === 4, {
      what: 'four open uploads',
    });
    for (const stream of streams) stream.end(Buffer.alloc(120_000));
    const results = await Promise.allSettled(pending);
    const granted = results.filter((r) => r.status === 'fulfilled');
    expect(granted).toHaveLength(1);
    const { path, reservationId } = (
      granted[0] as PromiseFulfilledResult<{ path: string; reservationId: string }>
    ).value;
    expect((await leftovers(s)).reservations).toBe(1);
    await uploads.discard(s.org.id, path, reservationId);
    expect(await leftovers(s)).toEqual({ incoming: [], folders: [], reservations: 0 });
  });
});
