// Helpers shared by the imports e2e files: uploads, polling, an in-process worker, CSV builders.
import { INestApplication } from '@nestjs/common';
import { ChildProcess, spawn } from 'node:child_process';
import { join, resolve } from 'node:path';
import { Test, TestingModule } from '@nestjs/testing';
import { parse } from 'csv-parse/sync';
import { WorkerModule } from '../../apps/worker/src/worker.module';
import { testLogger } from '../support/app';
import { waitFor } from '../support/wait-for';
import { Session } from '../support/session';

export const IMPORTS = '/api/v1/user/contact-imports';

export const IMPORT_KEYS = [
  'id',
  'organizationId',
  'fileName',
  'filePath',
  'status',
  'totalRows',
  'processedRows',
  'successCount',
  'errorCount',
  'newCount',
  'duplicateCount',
  'duplicateHandling',
  'allowPartialUpload',
  'listName',
  'tags',
  'consentConfirmed',
  'fieldMappings',
  'errorsFilePath',
  'errorReason',
  'createdAt',
  'startedAt',
  'completedAt',
  'updatedAt',
];

export interface ImportBody {
  id: string;
  status: string;
  totalRows: number;
  processedRows: number;
  successCount: number;
  errorCount: number;
  newCount: number;
  duplicateCount: number;
  errorsFilePath: string | null;
  errorReason: string | null;
  [k: string]: unknown;
}

/** Uploads `content` as the multipart field `file`; returns the raw response. */
export function uploadRaw(s: Session, content: string | Buffer, name = 'contacts.csv') {
  return s.http
    .post(IMPORTS)
    .attach('file', Buffer.isBuffer(content) ? content : Buffer.from(content), name);
}

/** Uploads and expects a 201; returns `data` ({import, preview}). */
export async function upload(s: Session, content: string | Buffer, name = 'contacts.csv') {
  const res = await uploadRaw(s, content, name);
  if (res.status !== 201) throw new Error(`upload: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.data as {
    import: ImportBody;
    preview: {
      headers: string[];
      rows: string[][];
      suggestedMappings: { csvHeader: string; serviceField: string }[];
    };
  };
}

export async function start(s: Session, id: string, body: Record<string, unknown>) {
  const res = await s.http.post(`${IMPORTS}/${id}/start`, { consentConfirmed: true, ...body });
  if (res.status !== 202) throw new Error(`start: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.data.import as ImportBody;
}

export async function getImport(s: Session, id: string): Promise<ImportBody> {
  const res = await s.http.get(`${IMPORTS}/${id}`);
  if (res.status !== 200) throw new Error(`get: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.data.import as ImportBody;
}

export const FINISHED = ['completed', 'completed_with_errors', 'failed', 'cancelled'];

/** Polls GET /contact-imports/{id} until `until` holds (default: a finished status). */
export async function waitForImport(
  s: Session,
  id: string,
  opts: { timeoutMs?: number; until?: (i: ImportBody) => boolean; everyMs?: number } = {},
): Promise<ImportBody> {
  const until = opts.until ?? ((i: ImportBody) => FINISHED.includes(i.status));
  let last: ImportBody | undefined;
  return waitFor(
    async () => {
      last = await getImport(s, id);
      return until(last) && last;
    },
    { what: `import ${id}`, timeoutMs: opts.timeoutMs ?? 30_000, everyMs: opts.everyMs ?? 100 },
  ).catch((err: Error) => {
    throw new Error(`${err.message} (still ${last?.status}, ${last?.processedRows} rows)`);
  });
}

/** The worker's module running in this process (Bull processors and the sweeper). */
export async function startInProcessWorker(): Promise<TestingModule> {
  const worker = await Test.createTestingModule({ imports: [WorkerModule] }).compile();
  worker.useLogger(testLogger('worker-test'));
  await worker.init();
  return worker;
}

/** Downloads the errors file and parses it (header row included). */
export async function downloadErrors(s: Session, id: string) {
  const res = await s.http
    .get(`${IMPORTS}/${id}/errors`)
    .buffer(true)
    .parse((r, cb) => {
      let data = '';
      r.setEncoding('utf8');
      r.on('data', (c: string) => (data += c));
      r.on('end', () => cb(null, data));
    });
  return {
    status: res.status,
    contentType: String(res.headers['content-type'] ?? ''),
    text: res.body as string,
    rows: res.status === 200 ? (parse(res.body as string) as string[][]) : [],
  };
}

/** One CSV line with RFC 4180 quoting. */
export function line(cells: (string | number)[], delimiter = ','): string {
  return (
    cells
      .map((c) => {
        const v = String(c);
        return /["\r\n,;]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v;
      })
      .join(delimiter) + '\n'
  );
}

const ROOT = resolve(__dirname, '../..');

/**
 * The worker app from its sources, in its own process, with a short lease so a death is seen
 * fast; `env` adds to the test's environment. `output` collects what it writes (its log lines,
 * warnings and errors) instead of showing it.
 */
export function spawnImportWorker(
  env: Record<string, string> = {},
  output?: string[],
): ChildProcess {
  const child = spawn(
    process.execPath,
    ['-r', join(ROOT, 'test/imports/ts-register.js'), join(ROOT, 'apps/worker/src/main.ts')],
    {
      cwd: ROOT,
      env: {
        ...process.env,
        WORKER_HEALTH_PORT: '0',
        IMPORT_LEASE_SECONDS: '3',
        IMPORT_SWEEP_SECONDS: '1',
        LOG_LEVEL: 'warn',
        ...env,
      },
      stdio: ['ignore', output ? 'pipe' : 'ignore', output ? 'pipe' : 'inherit'],
    },
  );
  for (const out of [child.stdout, child.stderr])
    out?.on('data', (chunk: Buffer) => output?.push(chunk.toString()));
  return child;
}

/** Resolves with the signal or code a child process ended with. */
export function exited(child: ChildProcess): Promise<NodeJS.Signals | number | null> {
  return new Promise((done) => {
    if (child.exitCode !== null || child.signalCode !== null)
      return done(child.signalCode ?? child.exitCode);
    child.once('exit', (code, signal) => done(signal ?? code));
  });
}

export type { INestApplication };
