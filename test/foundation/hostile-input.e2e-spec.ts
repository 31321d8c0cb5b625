// Hostile input the resilience fuzzer found answered with a 500 or without the error envelope (§4):
// deeply nested JSON, NUL characters and unpaired surrogates, page numbers past any offset, a
// nested DTO given a scalar or a list of arrays, dates given objects, null for a field that cannot
// be cleared, and requests Node's HTTP parser refuses before any route runs.
import { INestApplication } from '@nestjs/common';
import { AddressInfo, connect } from 'node:net';
import request from 'supertest';
import { createTestApp } from '../support/app';
import { createKey, createSession, Session } from '../support/session';

describe('Hostile input', () => {
  let app: INestApplication;
  let s: Session;
  let server: ReturnType<INestApplication['getHttpServer']>;

  beforeAll(async () => {
    app = await createTestApp();
    s = await createSession(app);
    server = app.getHttpServer();
  });
  afterAll(() => app.close());

  const raw = (method: 'post' | 'patch', path: string, body: string) => {
    const req = method === 'post' ? request(server).post(path) : request(server).patch(path);
    return req.set('X-API-Key', s.apiKey).set('Content-Type', 'application/json').send(body);
  };

  const expect422 = (res: request.Response, field: string, rule: string) => {
    expect(res.status).toBe(422);
    expect(res.body).toMatchObject({ success: false, code: 'E_VALIDATION_ERROR' });
    expect(res.body.errors).toEqual([expect.objectContaining({ field, rule })]);
  };

  it('refuses JSON nested deeper than 64 levels with 422, not a stack overflow', async () => {
    for (const levels of [65, 10_000, 100_000]) {
      const arrays = `${'['.repeat(levels)}${']'.repeat(levels)}`;
      expect422(await raw('post', '/api/v1/user/contact-tags', arrays), 'body', 'type');
      const objects = `{"name":"x","n":${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}}`;
      expect422(await raw('post', '/api/v1/user/contacts', objects), 'body', 'type');
    }
    // Nesting a real body needs (a custom field object a few levels deep) still passes.
    const ok = await s.http
      .post('/api/v1/user/contacts', { firstName: 'Deep', customFields: { a: { b: { c: [1] } } } })
      .expect(201);
    expect(ok.body.data.customFields).toEqual({ a: { b: { c: [1] } } });
  });

  it('refuses NUL characters in body values, body keys and the query string, naming the field', async () => {
    expect422(
      await s.http.post('/api/v1/user/contacts', { firstName: 'a\u0000b' }),
      'firstName',
      'type',
    );
    expect422(
      await s.http.post('/api/v1/user/contacts', { customFields: { plan: ['ok', 'x\u0000'] } }),
      'customFields.plan.1',
      'type',
    );
    expect422(
      await raw('post', '/api/v1/user/contacts', '{"customFields":{"k\\u0000":1}}'),
      'body',
      'type',
    );
    expect422(await s.http.get('/api/v1/user/contacts?search=%00'), 'search', 'type');
  });

  it('refuses unpaired surrogates, which made the email validator throw', async () => {
    const contact = await s.http.post('/api/v1/user/contacts', { firstName: 'S' }).expect(201);
    expect422(
      await raw(
        'post',
        `/api/v1/user/contacts/${contact.body.data.id}/emails`,
        '{"email":"a\\ud800@example.com"}',
      ),
      'email',
      'type',
    );
    expect422(
      await raw(
        'post',
        '/api/v1/send',
        '{"from":"a@example.com","to":"b@example.com","cc":"\\ud800","subject":"s","text":"t"}',
      ),
      'cc',
      'type',
    );
    // A surrogate pair is a character like any other.
    await raw('post', '/api/v1/user/contacts', '{"firstName":"\\ud83d\\ude00"}').expect(201);
  });

  it('refuses page numbers past any offset with 422 rule max', async () => {
    for (const path of [
      '/api/v1/user/contacts',
      '/api/v1/user/webhook-endpoints',
      '/api/v1/user/contact-tags',
      '/api/v1/user/messages',
    ]) {
      expect422(await s.http.get(`${path}?page=1.7976931348623157e308`), 'page', 'max');
      expect422(await s.http.get(`${path}?page=100000000000000000000`), 'page', 'max');
      await s.http.get(`${path}?page=10000000`).expect(200);
    }
  });

  it('names a nested object given a scalar with rule type', async () => {
    const res = await s.http.post('/api/v1/send', {
      from: 'a@example.com',
      to: 'b@example.com',
      subject: 's',
      text: 't',
      attachments: 'not a list',
      track: 'yes',
    });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ field: 'attachments', rule: 'type' }),
        expect.objectContaining({ field: 'track', rule: 'type' }),
      ]),
    );
  });

  it('refuses null for key fields that cannot be cleared, leaving the key unchanged', async () => {
    const { key } = await createKey(app, s.org.id, { name: 'kept', perMinute: 77 });
    for (const field of ['name', 'scopes', 'rateLimitPerMinute']) {
      expect422(
        await s.http.patch(`/api/v1/user/api-keys/${key.id}`, { [field]: null }),
        field,
        'required',
      );
    }
    const after = await s.http.get(`/api/v1/user/api-keys/${key.id}`).expect(200);
    expect(after.body.data).toMatchObject({ name: 'kept', rateLimitPerMinute: 77 });
    // The nullable ones still clear.
    await s.http.patch(`/api/v1/user/api-keys/${key.id}`, { rateLimitPerDay: null }).expect(200);
  });

  it('refuses a date given an object or a boolean (new Date() threw on one, read the other as 1970)', async () => {
    expect422(
      await s.http.post('/api/v1/user/api-keys', {
        name: 'k',
        scopes: ['contacts:read'],
        expiresAt: { toString: [] },
      }),
      'expiresAt',
      'type',
    );
    expect422(
      await s.http.post('/api/v1/user/api-keys', {
        name: 'k',
        scopes: ['contacts:read'],
        expiresAt: true,
      }),
      'expiresAt',
      'type',
    );
    const contact = await s.http.post('/api/v1/user/contacts', { firstName: 'D' }).expect(201);
    expect422(
      await s.http.post(`/api/v1/user/contacts/${contact.body.data.id}/telegram`, {
        phoneNumber: '+33612345678',
        lastActiveAt: { valueOf: 1, toString: null },
      }),
      'lastActiveAt',
      'type',
    );
    const ok = await s.http
      .post('/api/v1/user/api-keys', {
        name: 'k',
        scopes: ['contacts:read'],
        expiresAt: '2100-01-01T00:00:00Z',
      })
      .expect(201);
    expect(ok.body.data.expiresAt).toBe('2100-01-01T00:00:00.000Z');
  });

  it('refuses a list of nested objects holding arrays (they passed validation and crashed services)', async () => {
    const endpoint = await s.http
      .post('/api/v1/user/webhook-endpoints', {
        url: 'http://127.0.0.1:9/hook',
        events: ['contact.created'],
      })
      .expect(201);
    expect422(
      await s.http.post('/api/v1/user/webhook-endpoints', {
        url: 'http://127.0.0.1:9/hook',
        events: ['contact.created'],
        customHeaders: [[[]]],
      }),
      'customHeaders',
      'type',
    );
    expect422(
      await s.http.patch(`/api/v1/user/webhook-endpoints/${endpoint.body.data.id}`, {
        customHeaders: [[]],
      }),
      'customHeaders',
      'type',
    );
    expect422(await s.http.post('/api/v1/user/contacts', { emails: [[]] }), 'emails', 'type');
    const upload = await request(server)
      .post('/api/v1/user/contact-imports')
      .set('X-API-Key', s.apiKey)
      .attach('file', Buffer.from('email\na@example.com\n'), 'c.csv')
      .expect(201);
    expect422(
      await s.http.post(`/api/v1/user/contact-imports/${upload.body.data.import.id}/start`, {
        fieldMappings: [[[]]],
        consentConfirmed: true,
      }),
      'fieldMappings',
      'type',
    );
  });

  it('refuses null for webhook endpoint fields that cannot be cleared, leaving it unchanged', async () => {
    const endpoint = await s.http
      .post('/api/v1/user/webhook-endpoints', {
        url: 'http://127.0.0.1:9/kept',
        events: ['contact.created'],
      })
      .expect(201);
    const path = `/api/v1/user/webhook-endpoints/${endpoint.body.data.id}`;
    for (const field of [
      'url',
      'events',
      'isActive',
      'maxRetries',
      'customHeaders',
      'timeoutSeconds',
    ]) {
      expect422(await s.http.patch(path, { [field]: null }), field, 'required');
    }
    const after = await s.http.get(path).expect(200);
    expect(after.body.data).toMatchObject({ url: 'http://127.0.0.1:9/kept', isActive: true });
    await s.http.patch(path, { description: null }).expect(200);
  });

  it('refuses null for segment and campaign fields that cannot be cleared, leaving them unchanged', async () => {
    const list = await s.http.post('/api/v1/user/contact-lists', { name: 'Nulls' }).expect(201);
    const segment = await s.http
      .post('/api/v1/user/contact-segments', {
        name: 'Kept segment',
        type: 'dynamic',
        rules: { operator: 'and', conditions: [{ field: 'firstName', operator: 'isNotEmpty' }] },
      })
      .expect(201);
    const segmentPath = `/api/v1/user/contact-segments/${segment.body.data.id}`;
    for (const field of ['name', 'rules']) {
      expect422(await s.http.patch(segmentPath, { [field]: null }), field, 'required');
    }
    expect((await s.http.get(segmentPath).expect(200)).body.data.name).toBe('Kept segment');

    const campaign = await s.http
      .post('/api/v1/user/campaigns', {
        name: 'Kept campaign',
        subject: 'S',
        from: 'kept@example.com',
        text: 'x',
        listId: list.body.data.id,
      })
      .expect(201);
    const campaignPath = `/api/v1/user/campaigns/${campaign.body.data.id}`;
    for (const field of ['name', 'channel', 'subject', 'from', 'listId', 'segmentId']) {
      expect422(await s.http.patch(campaignPath, { [field]: null }), field, 'required');
    }
    expect((await s.http.get(campaignPath).expect(200)).body.data).toMatchObject({
      name: 'Kept campaign',
      from: 'kept@example.com',
    });
    // html and text may be cleared one at a time.
    await s.http.patch(campaignPath, { html: '<p>x</p>', text: null }).expect(200);
  });

  describe('requests the HTTP parser refuses', () => {
    let port: number;
    beforeAll(async () => {
      await app.listen(0, '127.0.0.1');
      port = (server.address() as AddressInfo).port;
    });

    const exchange = (bytes: Buffer) =>
      new Promise<string>((resolve, reject) => {
        const socket = connect(port, '127.0.0.1');
        const chunks: Buffer[] = [];
        socket.on('data', (c) => chunks.push(c));
        socket.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
        socket.on('error', reject);
        socket.end(bytes);
      });

    const envelope = (answer: string) => JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4));

    it('answers bytes that are not HTTP with a 422 error envelope naming the url', async () => {
      const answer = await exchange(
        Buffer.concat([
          Buffer.from('GET /api/v1/user/contacts/'),
          Buffer.from([0xff, 0xfe]),
          Buffer.from(' HTTP/1.1\r\nHost: x\r\n\r\n'),
        ]),
      );
      expect(answer).toMatch(/^HTTP\/1\.1 422 Unprocessable Entity\r\n/);
      expect(answer).toMatch(/Content-Type: application\/json/i);
      expect(envelope(answer)).toEqual({
        success: false,
        message: 'The request target is not a valid URL',
        code: 'E_VALIDATION_ERROR',
        errors: [{ field: 'url', rule: 'type', message: 'The request target is not a valid URL' }],
      });
    });

    it('answers headers over the size limit with a 431 error envelope', async () => {
      const answer = await exchange(
        Buffer.from(
          `GET /api/v1/user/contacts?q=${'x'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`,
        ),
      );
      expect(answer).toMatch(/^HTTP\/1\.1 431 /);
      expect(envelope(answer)).toEqual({
        success: false,
        message: 'Request headers are too large',
        code: 'E_VALIDATION_ERROR',
        errors: [{ field: 'headers', rule: 'max', message: 'Request headers are too large' }],
      });
    });
  });
});
