// §16: credentials and per-IP limits are checked before a body over 64 KB is read. Each refusal
// below is sent over a connection that has written only the start of a large body and then waits:
// an answer proves the server decided without the rest (a server reading the body first would
// wait for bytes that never come). Client addresses come from X-Forwarded-For (TRUST_PROXY=true).
import { INestApplication } from '@nestjs/common';
import { randomInt } from 'node:crypto';
import { request as httpRequest, OutgoingHttpHeaders } from 'node:http';
import { AddressInfo } from 'node:net';
import request from 'supertest';
import { createSession, Session } from '../support/session';
import { createTestApp } from '../support/app';
import { basicEmail, sendingEnv } from './support/sending';

const MB = 1024 * 1024;
/** What the client writes before waiting: well past the 64 KB read before authentication. */
const FIRST_PART = Buffer.alloc(256 * 1024, 'a');

function freshIp(): string {
  return `198.18.${randomInt(0, 255)}.${randomInt(1, 254)}`;
}

interface PartialAnswer {
  status: number;
  body: Record<string, unknown>;
}

describe('Large bodies are read only after authentication and the per-IP limits', () => {
  let app: INestApplication;
  let s: Session;
  let port: number;

  beforeAll(async () => {
    sendingEnv({ TRUST_PROXY: 'true' });
    app = await createTestApp();
    s = await createSession(app, { plan: 'enterprise' });
    await app.listen(0, '127.0.0.1');
    port = (app.getHttpServer().address() as AddressInfo).port;
  });
  afterAll(async () => {
    await app.close();
  });

  /**
   * Announces a body of `announced` bytes (or a chunked one), writes only FIRST_PART and waits for
   * the answer without sending the rest; null announced = chunked. Rejects when no answer comes
   * while the body is incomplete.
   */
  const partialPost = (
    path: string,
    headers: OutgoingHttpHeaders,
    announced: number | null,
  ): Promise<PartialAnswer> =>
    new Promise((resolve, reject) => {
      const req = httpRequest({
        host: '127.0.0.1',
        port,
        method: 'POST',
        path,
        headers: {
          'Content-Type': 'application/json',
          ...(announced === null
            ? { 'Transfer-Encoding': 'chunked' }
            : { 'Content-Length': announced }),
          ...headers,
        },
      });
      const timer = setTimeout(() => {
        req.destroy();
        reject(new Error('no answer while the body was incomplete: the server waited for it'));
      }, 5000);
      req.on('response', (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          clearTimeout(timer);
          req.destroy();
          resolve({
            status: res.statusCode ?? 0,
            body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>,
          });
        });
      });
      req.on('error', (err) => {
        clearTimeout(timer);
        reject(err);
      });
      req.write(FIRST_PART);
    });

  it('answers a 10 MB send without a credential with 401 before reading the body', async () => {
    const ip = freshIp();
    for (const announced of [10 * MB, null]) {
      const res = await partialPost('/api/v1/send', { 'X-Forwarded-For': ip }, announced);
      expect(res.status).toBe(401);
      expect(res.body).toMatchObject({ success: false, code: 'E_UNAUTHORIZED_ACCESS' });
    }
  });

  it('answers a 10 MB send with a wrong key, and a large body on any route, with 401 first', async () => {
    const ip = freshIp();
    const wrong = await partialPost(
      '/api/v1/send',
      { 'X-Forwarded-For': ip, 'X-API-Key': `bk_live_${'z'.repeat(40)}` },
      10 * MB,
    );
    expect(wrong.status).toBe(401);
    expect(wrong.body.code).toBe('E_UNAUTHORIZED_ACCESS');
    const contacts = await partialPost(
      '/api/v1/user/contacts',
      { 'X-Forwarded-For': ip, Authorization: 'Bearer at_not_a_token' },
      900 * 1024,
    );
    expect(contacts.status).toBe(401);
  });

  it('answers a multipart import upload without a credential with 401 before streaming it', async () => {
    const res = await partialPost(
      '/api/v1/user/contact-imports',
      { 'Content-Type': 'multipart/form-data; boundary=zzz', 'X-Forwarded-For': freshIp() },
      50 * MB,
    );
    expect(res.status).toBe(401);
    expect(res.body.code).toBe('E_UNAUTHORIZED_ACCESS');
  });

  it('answers an IP over its send limit with 429 before reading the body', async () => {
    const ip = freshIp();
    for (let i = 0; i < 30; i++) {
      await request(app.getHttpServer())
        .post('/api/v1/send')
        .set('X-Forwarded-For', ip)
        .set('X-API-Key', s.apiKey)
        .send({ from: 'x' })
        .expect(422);
    }
    const res = await partialPost(
      '/api/v1/send',
      { 'X-Forwarded-For': ip, 'X-API-Key': s.apiKey },
      10 * MB,
    );
    expect(res.status).toBe(429);
    expect(res.body).toMatchObject({
      code: 'E_TOO_MANY_REQUESTS',
      message: 'Too many requests, please try again later.',
    });
  });

  it('answers an IP blocked for failed authentications with 429 before reading the body', async () => {
    const ip = freshIp();
    for (let i = 0; i < 21; i++) {
      await request(app.getHttpServer())
        .post('/api/v1/send')
        .set('X-Forwarded-For', ip)
        .set('X-API-Key', `bk_live_${'q'.repeat(40)}`)
        .send(basicEmail());
    }
    const res = await partialPost(
      '/api/v1/send',
      { 'X-Forwarded-For': ip, 'X-API-Key': s.apiKey },
      null,
    );
    expect(res.status).toBe(429);
    expect(res.body.message).toBe('Too many failed attempts, please try again later');
  });

  it('reads a large body once the credential passed, with every rule of the parsers', async () => {
    const ip = freshIp();
    const post = (body: string, headers: Record<string, string> = {}) => {
      const req = request(app.getHttpServer())
        .post('/api/v1/send')
        .set('X-Forwarded-For', ip)
        .set('X-API-Key', s.apiKey)
        .set('Content-Type', 'application/json');
      for (const [k, v] of Object.entries(headers)) req.set(k, v);
      return req.send(body);
    };
    const text = 'x'.repeat(2 * MB);
    const sent = await post(JSON.stringify(basicEmail({ text }))).expect(202);
    expect(sent.body.data.status).toBe('queued');

    const malformed = await post(`{"text":"${text}"`).expect(422);
    expect(malformed.body.errors).toEqual([expect.objectContaining({ field: 'body' })]);
    const unknown = await post(JSON.stringify(basicEmail({ text, priority: 'high' }))).expect(422);
    expect(unknown.body.errors).toEqual([
      expect.objectContaining({ field: 'priority', rule: 'unknown' }),
    ]);
    const nul = await post(JSON.stringify(basicEmail({ text: `${text}\u0000` }))).expect(422);
    expect(nul.body.errors).toEqual([expect.objectContaining({ field: 'text', rule: 'type' })]);
  });

  it('reads a chunked body once the credential passed', async () => {
    const body = JSON.stringify(basicEmail({ text: 'y'.repeat(300 * 1024) }));
    const res = await new Promise<{ status: number; text: string }>((resolve, reject) => {
      const req = httpRequest({
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: '/api/v1/send',
        headers: {
          'Content-Type': 'application/json',
          'Transfer-Encoding': 'chunked',
          'X-Forwarded-For': freshIp(),
          'X-API-Key': s.apiKey,
        },
      });
      req.on('response', (r) => {
        const chunks: Buffer[] = [];
        r.on('data', (c: Buffer) => chunks.push(c));
        r.on('end', () =>
          resolve({ status: r.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }),
        );
      });
      req.on('error', reject);
      req.write(body.slice(0, 100_000));
      req.end(body.slice(100_000));
    });
    expect(res.status).toBe(202);
  });
});
