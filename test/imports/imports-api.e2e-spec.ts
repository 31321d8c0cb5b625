// The import routes without a worker running: upload and preview, drafts, start validation,
// cancel of a queued import, deletion rules, listing, scopes, malformed uploads (the
// parts decided at upload or start) and tenancy.
import { INestApplication } from '@nestjs/common';
import { getQueueToken } from '@nestjs/bull';
import type { Queue } from 'bull';
import { existsSync } from 'node:fs';
import { DataSource } from 'typeorm';
import { ImportsSweeper, loadConfig, QUEUES } from '@app/domain';
import { join } from 'node:path';
import { createTestApp } from '../support/app';
import { createSession, NIL_UUID, Session } from '../support/session';
import { IMPORT_KEYS, IMPORTS, line, start, upload, uploadRaw } from './imports-support';

/** The folder of the file:// object store (STORAGE_URL's default, under DATA_DIR). */
const FILES = (loadConfig().storage as { root: string }).root;

const CSV =
  '\uFEFF' +
  'Email;First name;Last name;Mobile;Notes;Loyalty tier\r\n' +
  'ann@example.com;Ann;Lee;+14155550100;"likes ""quotes""\nand newlines";gold\r\n' +
  'bob@example.com;Bob;;;;silver\r\n' +
  'cy@example.com;Cy;Roe;;;\r\n' +
  'di@example.com;Di;;;;\r\n' +
  'ed@example.com;Ed;;;;\r\n' +
  'flo@example.com;Flo;;;;\r\n';

describe('Contact imports API', () => {
  let app: INestApplication;
  let s: Session;
  let other: Session;

  beforeAll(async () => {
    app = await createTestApp();
    s = await createSession(app);
    other = await createSession(app);
  });
  afterAll(() => app.close());

  describe('upload', () => {
    it('stores the file, answers 201 with an uploaded draft and a preview', async () => {
      const res = await uploadRaw(s, CSV, 'spring list.csv');
      expect(res.status).toBe(201);
      expect(res.body.success).toBe(true);
      const { import: imp, preview } = res.body.data;
      expect(Object.keys(imp).sort()).toEqual([...IMPORT_KEYS].sort());
      expect(imp).toMatchObject({
        organizationId: s.org.id,
        fileName: 'spring list.csv',
        status: 'uploaded',
        totalRows: 0,
        processedRows: 0,
        successCount: 0,
        errorCount: 0,
        newCount: 0,
        duplicateCount: 0,
        consentConfirmed: false,
        fieldMappings: [],
        errorsFilePath: null,
        completedAt: null,
      });
      expect(imp.filePath).toBe(`imports/${s.org.id}/${imp.id}/source.csv`);
      expect(existsSync(join(FILES, imp.filePath))).toBe(true);
      // BOM stripped, `;` detected, quoted field with an embedded newline kept whole.
      expect(preview.headers).toEqual([
        'Email',
        'First name',
        'Last name',
        'Mobile',
        'Notes',
        'Loyalty tier',
      ]);
      expect(preview.rows).toHaveLength(5);
      expect(preview.rows[0]).toEqual([
        'ann@example.com',
        'Ann',
        'Lee',
        '+14155550100',
        'likes "quotes"\nand newlines',
        'gold',
      ]);
      expect(preview.suggestedMappings).toEqual([
        { csvHeader: 'Email', serviceField: 'email' },
        { csvHeader: 'First name', serviceField: 'firstName' },
        { csvHeader: 'Last name', serviceField: 'lastName' },
        { csvHeader: 'Mobile', serviceField: 'phoneNumber' },
        { csvHeader: 'Notes', serviceField: 'notes' },
        { csvHeader: 'Loyalty tier', serviceField: 'customFields.loyaltyTier' },
      ]);
    });

    it('keeps a draft out of the listing but readable by id', async () => {
      const up = await upload(s, CSV);
      const list = await s.http.get(IMPORTS);
      expect(list.status).toBe(200);
      expect(list.body.data.map((i: { id: string }) => i.id)).not.toContain(up.import.id);
      const one = await s.http.get(`${IMPORTS}/${up.import.id}`);
      expect(one.status).toBe(200);
      expect(one.body.data.import.id).toBe(up.import.id);
      expect(one.body.data.import.status).toBe('uploaded');
    });

    const malformed: [string, Buffer | string, RegExp][] = [
      ['a 0-byte file', Buffer.alloc(0), /empty/],
      ['a file of blank lines', '\n\r\n  \n', /no header row/],
      [
        'a binary file',
        Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]),
        /binary/,
      ],
      [
        'a file that is not UTF-8',
        Buffer.from([0x65, 0x6d, 0x61, 0x69, 0x6c, 0x0a, 0xff, 0xfe, 0x41, 0x0a]),
        /UTF-8/,
      ],
      ['a header with no data rows', 'email,first_name\r\n', /no data rows/],
      [
        'an unterminated quote',
        'email,first_name\na@b.co,"Ann\nb@b.co,Bob\n',
        /not valid CSV: .*[Qq]uote/,
      ],
      [
        'a quote inside an unquoted field',
        'email,first_name\na@b.co,An"n\n',
        /not valid CSV: .*[Qq]uote/,
      ],
      ['a header naming a column twice', 'email,email\na@b.co,c@d.co\n', /twice/],
    ];
    it.each(malformed)('refuses %s with a 422 on `file`', async (_name, body, message) => {
      const res = await uploadRaw(s, body);
      expect(res.status).toBe(422);
      expect(res.body.code).toBe('E_VALIDATION_ERROR');
      expect(res.body.errors[0].field).toBe('file');
      expect(res.body.errors[0].message).toMatch(message);
      expect(res.body.message).toMatch(message);
    });

    it('refuses a request without the file field, or with another field name', async () => {
      const none = await s.http.post(IMPORTS).field('note', 'x');
      expect(none.status).toBe(422);
      expect(none.body.errors[0]).toMatchObject({ field: 'file', rule: 'required' });
      const json = await s.http.post(IMPORTS, { file: 'a,b' });
      expect(json.status).toBe(422);
      const wrong = await s.http.post(IMPORTS).attach('upload', Buffer.from(CSV), 'x.csv');
      expect(wrong.status).toBe(422);
      expect(wrong.body.errors[0]).toMatchObject({ field: 'upload', rule: 'unknown' });
    });

    it('needs contacts:write', async () => {
      const reader = await createSession(app, { scopes: ['contacts:read'] });
      const res = await uploadRaw(reader, CSV);
      expect(res.status).toBe(403);
      expect(res.body.code).toBe('E_INSUFFICIENT_SCOPE');
    });
  });

  describe('start', () => {
    const mappings = [
      { csvHeader: 'Email', serviceField: 'email' },
      { csvHeader: 'First name', serviceField: 'firstName' },
    ];

    it('queues the import with the chosen settings (202)', async () => {
      const up = await upload(s, CSV);
      const res = await s.http.post(`${IMPORTS}/${up.import.id}/start`, {
        fieldMappings: mappings,
        duplicateHandling: 'update',
        allowPartialUpload: true,
        listName: '  Newsletter  ',
        tags: ['spring', 'Spring', 'vip'],
        consentConfirmed: true,
      });
      expect(res.status).toBe(202);
      expect(res.body.data.import).toMatchObject({
        status: 'queued',
        fieldMappings: mappings,
        duplicateHandling: 'update',
        allowPartialUpload: true,
        listName: 'Newsletter',
        tags: ['spring', 'vip'],
        consentConfirmed: true,
      });
      const again = await s.http.post(`${IMPORTS}/${up.import.id}/start`, {
        fieldMappings: mappings,
        consentConfirmed: true,
      });
      expect(again.status).toBe(409);
      expect(again.body.code).toBe('E_BUSINESS_RULE_VIOLATION');
    });

    it.each([
      [
        'consent not confirmed',
        { fieldMappings: mappings, consentConfirmed: false },
        'consentConfirmed',
        'required',
      ],
      ['consent missing', { fieldMappings: mappings }, 'consentConfirmed', 'required'],
      [
        'a mapping to an unknown field',
        {
          fieldMappings: [...mappings, { csvHeader: 'Notes', serviceField: 'shoeSize' }],
          consentConfirmed: true,
        },
        'fieldMappings.2.serviceField',
        'enum',
      ],
      [
        'a header that is not in the file',
        {
          fieldMappings: [mappings[0], { csvHeader: 'Surname', serviceField: 'lastName' }],
          consentConfirmed: true,
        },
        'fieldMappings.1.csvHeader',
        'enum',
      ],
      [
        'a field mapped twice',
        {
          fieldMappings: [...mappings, { csvHeader: 'Last name', serviceField: 'firstName' }],
          consentConfirmed: true,
        },
        'fieldMappings.2.serviceField',
        'unique',
      ],
      [
        'a bad custom field key',
        {
          fieldMappings: [...mappings, { csvHeader: 'Notes', serviceField: 'customFields.a b' }],
          consentConfirmed: true,
        },
        'fieldMappings.2.serviceField',
        'enum',
      ],
      [
        'only ignored columns',
        { fieldMappings: [{ csvHeader: 'Email', serviceField: 'ignore' }], consentConfirmed: true },
        'fieldMappings',
        'required',
      ],
      [
        'an unknown duplicateHandling',
        { fieldMappings: mappings, duplicateHandling: 'merge', consentConfirmed: true },
        'duplicateHandling',
        'enum',
      ],
      [
        'a mapping without serviceField',
        { fieldMappings: [{ csvHeader: 'Email' }], consentConfirmed: true },
        'fieldMappings.0.serviceField',
        'required',
      ],
      [
        'an unknown body field',
        { fieldMappings: mappings, consentConfirmed: true, dryRun: true },
        'dryRun',
        'unknown',
      ],
    ])('refuses %s with a 422 naming the field', async (_name, body, field, rule) => {
      const up = await upload(s, CSV);
      const res = await s.http.post(`${IMPORTS}/${up.import.id}/start`, body);
      expect(res.status).toBe(422);
      expect(res.body.errors).toEqual(
        expect.arrayContaining([expect.objectContaining({ field, rule })]),
      );
      expect((await s.http.get(`${IMPORTS}/${up.import.id}`)).body.data.import.status).toBe(
        'uploaded',
      );
    });

    it('answers 404 for an unknown import and 422 for a non-UUID id', async () => {
      const body = { fieldMappings: mappings, consentConfirmed: true };
      expect((await s.http.post(`${IMPORTS}/${NIL_UUID}/start`, body)).status).toBe(404);
      const bad = await s.http.post(`${IMPORTS}/nope/start`, body);
      expect(bad.status).toBe(422);
      expect(bad.body.errors[0]).toMatchObject({ field: 'id', rule: 'uuid' });
    });
  });

  describe('cancel, delete, listing', () => {
    it('cancels a queued import; a second cancel is a 409', async () => {
      const up = await upload(s, CSV);
      await start(s, up.import.id, {
        fieldMappings: [{ csvHeader: 'Email', serviceField: 'email' }],
      });
      const res = await s.http.post(`${IMPORTS}/${up.import.id}/cancel`);
      expect(res.status).toBe(200);
      expect(res.body.data.import.status).toBe('cancelled');
      expect(res.body.data.import.completedAt).not.toBeNull();
      const again = await s.http.post(`${IMPORTS}/${up.import.id}/cancel`);
      expect(again.status).toBe(409);
      const draft = await upload(s, CSV);
      expect((await s.http.post(`${IMPORTS}/${draft.import.id}/cancel`)).status).toBe(409);
    });

    it('deletes drafts and finished imports with their files; a queued one is a 409', async () => {
      const draft = await upload(s, CSV);
      const path = join(FILES, draft.import.filePath as string);
      expect(existsSync(path)).toBe(true);
      const del = await s.http.delete(`${IMPORTS}/${draft.import.id}`);
      expect(del.status).toBe(200);
      expect(existsSync(path)).toBe(false);
      expect((await s.http.get(`${IMPORTS}/${draft.import.id}`)).status).toBe(404);

      const queued = await upload(s, CSV);
      await start(s, queued.import.id, {
        fieldMappings: [{ csvHeader: 'Email', serviceField: 'email' }],
      });
      const refused = await s.http.delete(`${IMPORTS}/${queued.import.id}`);
      expect(refused.status).toBe(409);
      await s.http.post(`${IMPORTS}/${queued.import.id}/cancel`);
      expect((await s.http.delete(`${IMPORTS}/${queued.import.id}`)).status).toBe(200);
    });

    it('lists started imports newest first, paginated, without drafts', async () => {
      const fresh = await createSession(app);
      const ids: string[] = [];
      for (let i = 0; i < 3; i++) {
        const up = await upload(fresh, CSV, `f${i}.csv`);
        await start(fresh, up.import.id, {
          fieldMappings: [{ csvHeader: 'Email', serviceField: 'email' }],
        });
        ids.push(up.import.id);
      }
      await upload(fresh, CSV, 'draft.csv');
      const page1 = await fresh.http.get(`${IMPORTS}?limit=2`);
      expect(page1.status).toBe(200);
      expect(page1.body.data.map((i: { id: string }) => i.id)).toEqual([ids[2], ids[1]]);
      expect(page1.body.meta).toMatchObject({
        total: 3,
        perPage: 2,
        currentPage: 1,
        lastPage: 2,
        nextPageUrl: `${IMPORTS}?limit=2&page=2`,
      });
      const page2 = await fresh.http.get(`${IMPORTS}?limit=2&page=2`);
      expect(page2.body.data.map((i: { id: string }) => i.id)).toEqual([ids[0]]);
      expect(Object.keys(page2.body.data[0]).sort()).toEqual([...IMPORT_KEYS].sort());
      expect((await fresh.http.get(`${IMPORTS}?limit=500`)).status).toBe(422);
    });

    it('has no errors file for an import without invalid rows (404)', async () => {
      const up = await upload(s, CSV);
      const res = await s.http.get(`${IMPORTS}/${up.import.id}/errors`);
      expect(res.status).toBe(404);
    });
  });

  describe('sweeper', () => {
    it('re-enqueues a queued import whose job was lost, and leaves a waiting one alone', async () => {
      const queue = app.get<Queue>(getQueueToken(QUEUES.imports));
      const ds = app.get(DataSource);
      const up = await upload(s, CSV);
      await start(s, up.import.id, {
        fieldMappings: [{ csvHeader: 'Email', serviceField: 'email' }],
      });
      const jobOf = async () =>
        (
          (await ds.query(`SELECT job_id FROM contact_imports WHERE id = $1`, [up.import.id])) as {
            job_id: string;
          }[]
        )[0].job_id;
      const first = await jobOf();
      expect(await queue.getJob(first)).not.toBeNull();
      // Old enough to be looked at, but its job still waits: nothing is added.
      const age = `UPDATE contact_imports SET enqueued_at = now() - interval '1 hour' WHERE id = $1`;
      await ds.query(age, [up.import.id]);
      expect(await app.get(ImportsSweeper).sweep()).not.toContain(up.import.id);
      expect(await jobOf()).toBe(first);
      // Redis lost the job: the next sweep enqueues a new one.
      await (await queue.getJob(first))!.remove();
      await ds.query(age, [up.import.id]);
      expect(await app.get(ImportsSweeper).sweep()).toContain(up.import.id);
      const second = await jobOf();
      expect(second).not.toBe(first);
      const job = await queue.getJob(second);
      expect(job?.data).toEqual({ importId: up.import.id, organizationId: s.org.id });
      await s.http.post(`${IMPORTS}/${up.import.id}/cancel`);
    });
  });

  describe('tenancy', () => {
    it("hides an organization's import from another: read, start, cancel, download, delete → 404", async () => {
      const up = await upload(s, line(['email']) + line(['t@example.com']));
      const id = up.import.id;
      const other404 = async (res: { status: number; body: { code: string } }) => {
        expect(res.status).toBe(404);
        expect(res.body.code).toBe('E_ROW_NOT_FOUND');
      };
      await other404(await other.http.get(`${IMPORTS}/${id}`));
      await other404(
        await other.http.post(`${IMPORTS}/${id}/start`, {
          fieldMappings: [{ csvHeader: 'email', serviceField: 'email' }],
          consentConfirmed: true,
        }),
      );
      await start(s, id, { fieldMappings: [{ csvHeader: 'email', serviceField: 'email' }] });
      await other404(await other.http.post(`${IMPORTS}/${id}/cancel`));
      await other404(await other.http.get(`${IMPORTS}/${id}/errors`));
      await other404(await other.http.delete(`${IMPORTS}/${id}`));
      const list = await other.http.get(IMPORTS);
      expect(list.body.data.map((i: { id: string }) => i.id)).not.toContain(id);
      // Still the owner's, untouched.
      expect((await s.http.get(`${IMPORTS}/${id}`)).body.data.import.status).toBe('queued');
      await s.http.post(`${IMPORTS}/${id}/cancel`);
    });
  });
});
