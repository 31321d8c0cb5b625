// How import batches take turns, with fakes for the database (a row lock that holds until its
// transaction ends, a checkpoint that moves only on commit) and for the contacts service.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import type { DataSource, EntityManager } from 'typeorm';
import { asOrgId } from '../common/org-id';
import type { AppConfig } from '../config/app-config';
import type {
  BulkCreateOptions,
  ContactsBulkService,
  NewContactRow,
} from '../contacts/contacts-bulk.service';
import { configureFieldEncryption, FieldCipher } from '../crypto/field-encryption';
import { FileObjectStore } from '../storage/file-object-store';
import type { ContactImport } from './contact-import.entity';
import { ImportBatches, RunControl, TURN_WAIT_MS } from './import-batches';
import { ImportStopped } from './import-errors';
import { compileMappings } from './import-fields';
import { ImportStorage } from './import-storage';
import type { BatchProgress, ImportsRepository } from './imports.repository';

const ORG = asOrgId('00000000-0000-4000-8000-000000000001');
const IMPORT = '00000000-0000-4000-8000-0000000000i1';
const LEASE = 'lease-1';

beforeAll(() => configureFieldEncryption(new FieldCipher(Buffer.alloc(32, 7))));

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

/** Lets the event loop turn until `done` holds (a bounded number of turns). */
async function until(done: () => boolean): Promise<void> {
  for (let i = 0; i < 10_000 && !done(); i++) await new Promise((r) => setImmediate(r));
  if (!done()) throw new Error('the awaited state never came');
}

/** Lets the event loop turn `n` times. */
async function turns(n: number): Promise<void> {
  for (let i = 0; i < n; i++) await new Promise((r) => setImmediate(r));
}

/** The import row: its state, a FOR UPDATE lock held until the holder's transaction ends. */
class ImportRow {
  status = 'processing';
  lease = LEASE;
  checkpoint = 0;
  committed: BatchProgress[] = [];
  private holder: object | null = null;
  private waiters: (() => void)[] = [];

  async lock(owner: object) {
    while (this.holder && this.holder !== owner)
      await new Promise<void>((r) => this.waiters.push(r));
    this.holder = owner;
    return { status: this.status, lease_token: this.lease, checkpoint_row: this.checkpoint };
  }

  release(owner: object) {
    if (this.holder !== owner) return;
    this.holder = null;
    for (const wake of this.waiters.splice(0)) wake();
  }
}

function setup(rows: number, begin?: (call: number, opts: BulkCreateOptions) => Promise<void>) {
  const dir = mkdtempSync(join(tmpdir(), 'import-batches-spec-'));
  const storage = new ImportStorage(new FileObjectStore(dir));
  const key = storage.sourcePath(ORG, IMPORT);
  let csv = 'email\n';
  for (let i = 1; i <= rows; i++) csv += `row${i}@x.test\n`;
  const stored = storage.objects.write(key, Readable.from([Buffer.from(csv)]));
  const source = storage.bytes(key);

  const row = new ImportRow();
  const pending = new Map<object, BatchProgress>();
  const log: string[] = [];
  const ds = {
    createQueryRunner: () => {
      const manager = {};
      const end = (commit: boolean) => {
        const progress = pending.get(manager);
        pending.delete(manager);
        if (commit && progress) {
          row.checkpoint = progress.checkpointRow;
          row.committed.push(progress);
        }
        log.push(`${commit ? 'commit' : 'rollback'} ${progress?.checkpointRow ?? '-'}`);
        row.release(manager);
      };
      return {
        manager,
        startTransaction: async () => undefined,
        commitTransaction: async () => end(true),
        rollbackTransaction: async () => end(false),
        release: async () => undefined,
      };
    },
  } as unknown as DataSource;
  const imports = {
    beginBatch: async () => undefined,
    lockForBatch: (_org: string, _id: string, em: EntityManager) => row.lock(em),
    recordBatch: async (_org: string, _id: string, b: BatchProgress, em: EntityManager) => {
      pending.set(em, b);
    },
  } as unknown as ImportsRepository;
  const calls: { rows: NewContactRow[]; opts: BulkCreateOptions; finished: boolean }[] = [];
  const contacts = {
    begin: async (
      _em: EntityManager,
      org: string,
      batch: NewContactRow[],
      opts: BulkCreateOptions,
    ) => {
      expect(org).toBe(ORG);
      const call = { rows: batch, opts, finished: false };
      calls.push(call);
      await begin?.(calls.length, opts);
      return {
        newCount: batch.length,
        duplicateCount: 0,
        finish: async () => {
          call.finished = true;
          return [];
        },
      };
    },
  } as unknown as ContactsBulkService;
  const batches = new ImportBatches(ds, imports, contacts, storage, {
    imports: { batchSize: 2 },
  } as AppConfig);
  const imp = {
    id: IMPORT,
    organizationId: ORG,
    headers: ['email'],
    delimiter: ',',
    errorsFileBytes: 0,
    checkpointRow: 0,
    checkpointByte: 0,
    duplicateHandling: 'skip',
    tags: ['imported'],
  } as unknown as ContactImport;
  const run: RunControl = { lease: LEASE, lost: () => false, stopping: () => false };
  const write = async () => {
    await stored;
    return batches.write(
      imp,
      compileMappings([{ csvHeader: 'email', serviceField: 'email' }], ['email']),
      source,
      'list-1',
      run,
    );
  };
  return { write, row, log, calls, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

describe('ImportBatches', () => {
  it('writes the file in batches committed in file order, each through the contacts service', async () => {
    const s = setup(5);
    try {
      await s.write();
      expect(s.row.committed.map((b) => [b.checkpointRow, b.rows, b.created])).toEqual([
        [2, 2, 2],
        [4, 2, 2],
        [5, 1, 1],
      ]);
      expect(s.calls.map((c) => c.rows.map((r) => r.emailAddress))).toEqual([
        ['row1@x.test', 'row2@x.test'],
        ['row3@x.test', 'row4@x.test'],
        ['row5@x.test'],
      ]);
      expect(s.calls.every((c) => c.finished)).toBe(true);
      expect(s.calls[0].opts).toMatchObject({
        duplicates: 'skip',
        tags: ['imported'],
        listIds: ['list-1'],
        events: false,
      });
    } finally {
      s.cleanup();
    }
  });

  it('a batch whose new contacts are written first waits for the one ahead to take its turn: nothing rolls back', async () => {
    const secondWritten = deferred();
    const s = setup(4, async (call) => {
      // The first batch is slow to write its new contacts: the second is done first.
      if (call === 1) await secondWritten.promise;
    });
    const wait = s.write();
    await until(() => s.calls.length === 2);
    // Let the second batch reach its turn: it waits, holding no lock, writing nothing more.
    await turns(50);
    expect(s.log).toEqual([]);
    expect(s.calls.map((c) => c.finished)).toEqual([false, false]);
    secondWritten.resolve();
    await wait;
    expect(s.log).toEqual(['commit 2', 'commit 4']);
    expect(s.row.committed.map((b) => b.checkpointRow)).toEqual([2, 4]);
    expect(s.calls.map((c) => [c.rows[0].emailAddress, c.finished])).toEqual([
      ['row1@x.test', true],
      ['row3@x.test', true],
    ]);
    s.cleanup();
  });

  it('when the one ahead does not take its turn in time (it may wait for a row of this batch), this batch takes the row, rolls back, waits for it and runs again', async () => {
    jest.useFakeTimers({ doNotFake: ['setImmediate', 'nextTick', 'queueMicrotask'] });
    try {
      const firstHeld = deferred();
      const s = setup(4, async (call) => {
        if (call === 1) await firstHeld.promise;
      });
      const wait = s.write();
      await until(() => s.calls.length === 2);
      await turns(50);
      expect(s.log).toEqual([]);
      jest.advanceTimersByTime(TURN_WAIT_MS);
      // The second batch's first attempt ends in a rollback with nothing recorded.
      await until(() => s.log.includes('rollback -'));
      expect(s.row.committed).toEqual([]);
      firstHeld.resolve();
      await wait;
      expect(s.log).toEqual(['rollback -', 'commit 2', 'commit 4']);
      expect(s.row.committed.map((b) => b.checkpointRow)).toEqual([2, 4]);
      // Three writes: the first batch's, the second's given up (never finished), its rerun.
      expect(s.calls.map((c) => [c.rows[0].emailAddress, c.finished])).toEqual([
        ['row1@x.test', true],
        ['row3@x.test', false],
        ['row3@x.test', true],
      ]);
      s.cleanup();
    } finally {
      jest.useRealTimers();
    }
  });

  it('when the batch ahead fails, the one after it stops without writing and the run fails with that error', async () => {
    const secondWritten = deferred();
    const s = setup(4, async (call) => {
      if (call === 1) {
        await secondWritten.promise;
        throw new Error('the database went away');
      }
    });
    const wait = s.write();
    await until(() => s.calls.length === 2);
    secondWritten.resolve();
    await expect(wait).rejects.toThrow('the database went away');
    expect(s.log).toEqual(['rollback -', 'rollback -']);
    expect(s.row.committed).toEqual([]);
    expect(s.calls.filter((c) => c.finished)).toEqual([]);
    s.cleanup();
  });

  it('a batch that meets a concurrent write of one of its emails runs again', async () => {
    const s = setup(2, async (call) => {
      if (call === 1)
        throw Object.assign(new Error('duplicate key'), {
          code: '23505',
          constraint: 'contact_emails_organization_id_email_hash_key',
        });
    });
    await s.write();
    expect(s.calls.map((c) => [c.rows[0].emailAddress, c.finished])).toEqual([
      ['row1@x.test', false],
      ['row1@x.test', true],
    ]);
    expect(s.row.committed.map((b) => b.checkpointRow)).toEqual([2]);
    s.cleanup();
  });

  it('stops when another worker took the import, when it was cancelled, or when the checkpoint moved', async () => {
    for (const [change, reason] of [
      [(r: ImportRow) => (r.lease = 'other'), 'another worker took the import'],
      [(r: ImportRow) => (r.status = 'cancelled'), 'the import is cancelled'],
      [(r: ImportRow) => (r.checkpoint = 7), 'the checkpoint moved under this run'],
    ] as const) {
      const s = setup(2);
      change(s.row);
      const err = await s.write().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ImportStopped);
      expect((err as Error).message).toBe(reason);
      expect(s.row.committed).toEqual([]);
      expect(s.calls.every((c) => !c.finished)).toBe(true);
      s.cleanup();
    }
  });
});
