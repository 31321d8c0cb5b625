// Acceptance 4: open pixel and signed click redirect writing engagement events to their own store,
// and the failure rules of GET /messages/{jobId} (engagement store down → [], log store down → 503).
import { INestApplication } from '@nestjs/common';
import { TestingModule } from '@nestjs/testing';
import request from 'supertest';
import { createTestApp } from '../support/app';
import { client, createSession, Session } from '../support/session';
import { startSmtpSink, SinkMessage, SmtpSink } from './support/smtp-sink';
import { startTcpProxy, TcpProxy } from './support/tcp-proxy';
import { basicEmail, sendingEnv, startWorker, waitForMessage } from './support/sending';

const UA = 'Mozilla/5.0 (TrackingTest)';

function tokenFrom(html: string, kind: 'o' | 'c', nth = 0): string {
  const re = kind === 'o' ? /\/t\/o\/([A-Za-z0-9_-]+)\.gif/g : /\/t\/c\/([A-Za-z0-9_-]+)"/g;
  return [...html.matchAll(re)][nth][1];
}

/** Changes one character in the middle of a token (payload or MAC). */
function tamper(token: string, at: number): string {
  const c = token[at] === 'A' ? 'B' : 'A';
  return token.slice(0, at) + c + token.slice(at + 1);
}

describe('Tracking and the engagement store', () => {
  let sink: SmtpSink;
  let engagementProxy: TcpProxy;
  let app: INestApplication;
  let worker: TestingModule;
  let s: Session;
  let jobId: string;
  let mails: SinkMessage[];

  beforeAll(async () => {
    sink = await startSmtpSink();
    engagementProxy = await startTcpProxy(process.env.DATABASE_URL!);
    sendingEnv({
      SMTP_OUTBOUND_URL: sink.url,
      ENGAGEMENT_DATABASE_URL: engagementProxy.rewrite(process.env.DATABASE_URL!),
      PUBLIC_BASE_URL: 'https://track.example.test',
    });
    app = await createTestApp();
    worker = await startWorker();
    s = await createSession(app, { plan: 'pro' });

    const res = await s.http
      .post(
        '/api/v1/send',
        basicEmail({
          to: ['first@example.test', 'second@example.test'],
          html:
            '<html><body><p>Hi</p><a href="https://shop.example.test/p?id=1&amp;ref=mail">Buy</a>' +
            ' <a class="x" href=\'http://other.example.test/\'>Other</a>' +
            ' <a href="mailto:help@sender.test">Mail us</a></body></html>',
          track: { opens: true, clicks: true },
        }),
      )
      .expect(202);
    jobId = res.body.data.jobId;
    mails = await sink.waitForMessages(2);
    await waitForMessage(s.http, jobId, (m) => m.status === 'delivered');
  });
  afterAll(async () => {
    await worker.close();
    await app.close();
    await sink.close();
    await engagementProxy.stop();
  });

  const htmlFor = (rcpt: string) => String(mails.find((m) => m.to[0] === rcpt)!.parsed.html);

  it('sends each recipient its own pixel and signed links, leaving other links alone', () => {
    const first = htmlFor('first@example.test');
    const second = htmlFor('second@example.test');
    expect(first).toMatch(/<img src="https:\/\/track\.example\.test\/t\/o\/[A-Za-z0-9_-]+\.gif"/);
    expect(first).toContain('href="https://track.example.test/t/c/');
    expect(first).toContain('href="mailto:help@sender.test"');
    expect(first).not.toContain('shop.example.test');
    expect(tokenFrom(first, 'o')).not.toBe(tokenFrom(second, 'o'));
  });

  it('records an open with the user agent and IP, and answers a GIF', async () => {
    const token = tokenFrom(htmlFor('first@example.test'), 'o');
    const res = await request(app.getHttpServer())
      .get(`/t/o/${token}.gif`)
      .set('User-Agent', UA)
      .expect(200);
    expect(res.headers['content-type']).toBe('image/gif');
    expect(res.headers['cache-control']).toContain('no-store');
    expect(res.body).toBeInstanceOf(Buffer);
    expect(res.body.subarray(0, 6).toString()).toBe('GIF89a');

    const log = await waitForMessage(s.http, jobId, (m) => m.engagementEvents.length > 0);
    expect(log.engagementEvents).toEqual([
      {
        type: 'opened',
        recipient: 'first@example.test',
        userAgent: UA,
        remoteIp: '127.0.0.1',
        occurredAt: expect.any(String),
      },
    ]);
  });

  it('redirects a click to the signed URL and records it', async () => {
    const token = tokenFrom(htmlFor('second@example.test'), 'c');
    const res = await request(app.getHttpServer())
      .get(`/t/c/${token}`)
      .set('User-Agent', UA)
      .expect(302);
    expect(res.headers.location).toBe('https://shop.example.test/p?id=1&ref=mail');
    const other = tokenFrom(htmlFor('second@example.test'), 'c', 1);
    const res2 = await request(app.getHttpServer()).get(`/t/c/${other}`).expect(302);
    expect(res2.headers.location).toBe('http://other.example.test/');

    const log = await waitForMessage(s.http, jobId, (m) => m.engagementEvents.length >= 3);
    expect(log.engagementEvents.map((e) => [e.type, e.recipient])).toEqual([
      ['opened', 'first@example.test'],
      ['clicked', 'second@example.test'],
      ['clicked', 'second@example.test'],
    ]);
    expect(log.engagementEvents[1]).toMatchObject({
      userAgent: UA,
      remoteIp: '127.0.0.1',
      url: 'https://shop.example.test/p?id=1&ref=mail',
    });
  });

  it('answers a tampered token with 404 and redirects nowhere', async () => {
    const click = tokenFrom(htmlFor('first@example.test'), 'c');
    const open = tokenFrom(htmlFor('first@example.test'), 'o');
    const before = (await waitForMessage(s.http, jobId, () => true)).engagementEvents.length;
    const forged = [
      tamper(click, 40), // inside the signed URL
      tamper(click, click.length - 3), // inside the MAC
      click.slice(0, -4),
      'not-a-token',
    ];
    for (const t of forged) {
      const res = await request(app.getHttpServer()).get(`/t/c/${t}`).expect(404);
      expect(res.headers.location).toBeUndefined();
      expect(res.body).toMatchObject({ success: false, code: 'E_ROW_NOT_FOUND' });
    }
    // A click token is not an open token, and the other way round.
    await request(app.getHttpServer()).get(`/t/o/${click}.gif`).expect(404);
    const asClick = await request(app.getHttpServer()).get(`/t/c/${open}`).expect(404);
    expect(asClick.headers.location).toBeUndefined();
    await request(app.getHttpServer())
      .get(`/t/o/${tamper(open, 10)}.gif`)
      .expect(404);
    const after = (await waitForMessage(s.http, jobId, () => true)).engagementEvents.length;
    expect(after).toBe(before);
  });

  it('answers the message with engagementEvents [] while the engagement store is down', async () => {
    const up = await waitForMessage(s.http, jobId, () => true);
    expect(up.engagementEvents.length).toBeGreaterThan(0);
    await engagementProxy.stop();

    const res = await s.http.get(`/api/v1/user/messages/${jobId}`).expect(200);
    expect(res.body.data.engagementEvents).toEqual([]);
    expect(res.body.data.deliveryAttempts).toHaveLength(2);
    // Tracking keeps answering (the event is lost, the pixel and the redirect are not).
    await request(app.getHttpServer())
      .get(`/t/o/${tokenFrom(htmlFor('second@example.test'), 'o')}.gif`)
      .expect(200);
    const click = await request(app.getHttpServer())
      .get(`/t/c/${tokenFrom(htmlFor('first@example.test'), 'c')}`)
      .expect(302);
    expect(click.headers.location).toBe('https://shop.example.test/p?id=1&ref=mail');
  });

  it('answers 503 with Retry-After while the log store is down, 404 for a missing job', async () => {
    const logProxy = await startTcpProxy(process.env.DATABASE_URL!);
    const saved = process.env.DATABASE_URL;
    process.env.DATABASE_URL = logProxy.rewrite(saved!);
    let second: INestApplication | undefined;
    try {
      second = await createTestApp();
      const http = client(second, { 'X-API-Key': s.apiKey });
      await http.get(`/api/v1/user/messages/${jobId}`).expect(200);
      const missing = await http.get('/api/v1/user/messages/job_01ARZ3NDEKTSV4RRFFQ69G5FAV');
      expect(missing.status).toBe(404);
      expect(missing.body.code).toBe('E_ROW_NOT_FOUND');

      await logProxy.stop();
      const res = await http.get(`/api/v1/user/messages/${jobId}`).expect(503);
      expect(res.body).toEqual({
        success: false,
        message: expect.any(String),
        code: 'E_SERVICE_UNAVAILABLE',
        retryAfter: expect.any(Number),
      });
      expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
    } finally {
      process.env.DATABASE_URL = saved;
      await second?.close();
    }
  });
});
