// §16: tracked HTML is rewritten in linear time without holding the worker's event loop. A send of
// about 5 MB of pathological HTML with open and click tracking goes through a real worker process
// while the test polls that worker's /health: every answer must come within 200 ms, and the
// message must reach the SMTP sink tracked, with everything but the links and the pixel intact.
import { INestApplication } from '@nestjs/common';
import { MAX_TRACKED_HTML_BYTES, MAX_TRACKED_LINKS } from '@app/domain';
import { createTestApp } from '../support/app';
import { createSession, Session } from '../support/session';
import { startSmtpSink, SmtpSink } from './support/smtp-sink';
import { basicEmail, sendingEnv, waitForMessage } from './support/sending';
import { pollHealth, spawnWorker, WorkerProcess } from './support/worker-process';
import { waitFor } from '../support/wait-for';

const SLOW_MS = 200;
const RECIPIENT = 'hostile@example.test';

/**
 * Just under the size cap, so it is tracked: real links, many </body> (the pixel goes before the
 * last), then one tag that never closes: `<a <a <a …` and attributes whose values run into the
 * next ones (inputs on which a regular-expression rewriter takes quadratic time).
 */
function hostileHtml(): { html: string; tail: string; links: number } {
  const links = 1000;
  let head = '<html><body><p>Offers</p>';
  for (let i = 0; i < links; i++) head += `<a href="https://shop.example.test/p/${i}">p${i}</a>`;
  head += '</body>'.repeat(100_000);
  const unterminated = '<a href="https://x.example.test/ title=\'t '.repeat(20_000);
  const room = MAX_TRACKED_HTML_BYTES - 64 - head.length - unterminated.length;
  const tail = '<a '.repeat(Math.floor(room / 3)) + unterminated;
  return { html: head + tail, tail, links };
}

describe('Tracked HTML of hostile shape (worker process)', () => {
  let sink: SmtpSink;
  let app: INestApplication;
  let worker: WorkerProcess;
  let s: Session;

  beforeAll(async () => {
    sink = await startSmtpSink();
    sendingEnv({ SMTP_OUTBOUND_URL: sink.url, PUBLIC_BASE_URL: 'https://track.example.test' });
    app = await createTestApp();
    worker = await spawnWorker();
    s = await createSession(app, { plan: 'pro' });
    // A first delivery starts the worker's SMTP thread (from sources: transpiled then), which is
    // not what this file measures.
    const warm = await s.http.post('/api/v1/send', basicEmail({ to: 'warm@example.test' }));
    expect(warm.status).toBe(202);
    await waitForMessage(s.http, warm.body.data.jobId, (m) => m.status === 'delivered', 60_000);
  }, 120_000);
  afterAll(async () => {
    await worker?.kill();
    await app?.close();
    await sink?.close();
  });

  it('keeps /health under 200 ms while it tracks about 5 MB of pathological HTML', async () => {
    const { html, tail, links } = hostileHtml();
    expect(Buffer.byteLength(html)).toBeLessThanOrEqual(MAX_TRACKED_HTML_BYTES);
    expect(Buffer.byteLength(html)).toBeGreaterThan(MAX_TRACKED_HTML_BYTES - 1024);

    // Timed from a process of its own, from before the send until the message is rendered.
    const poller = pollHealth(worker.healthUrl);
    await waitFor(async () => poller.latencies.length > 0, { what: 'a first /health answer' });
    const res = await s.http
      .post(
        '/api/v1/send',
        basicEmail({ to: RECIPIENT, html, track: { clicks: true, opens: true } }),
      )
      .expect(202);
    const jobId: string = res.body.data.jobId;

    // The worker renders before it sends: once the sink sees the recipient, the rewrite is done.
    await waitFor(
      async () => sink.rcptSeen.includes(RECIPIENT) || poller.latencies.some((ms) => ms >= SLOW_MS),
      { what: 'the hostile message at the sink', timeoutMs: 60_000 },
    );
    const latencies = await poller.stop();
    expect(latencies.filter((ms) => ms >= SLOW_MS)).toEqual([]);
    expect(latencies.length).toBeGreaterThanOrEqual(5);

    await waitForMessage(s.http, jobId, (m) => m.status === 'delivered', 60_000);
    const mail = await waitFor(async () => sink.messages.find((m) => m.to.includes(RECIPIENT)), {
      what: 'the hostile message in the sink',
      timeoutMs: 60_000,
    });
    const out = String(mail.parsed.html);
    expect(out.match(/href="https:\/\/track\.example\.test\/t\/c\//g)).toHaveLength(links);
    expect(out).not.toContain('shop.example.test');
    // The pixel sits before the last </body>, and the unclosed tag comes through untouched.
    expect(out.slice(0, out.lastIndexOf('</body>'))).toMatch(
      /<img src="https:\/\/track\.example\.test\/t\/o\/[\w-]+\.gif"[^>]*\/>$/,
    );
    expect(out.endsWith(tail)).toBe(true);
  }, 180_000);

  it(`sends HTML with more than ${MAX_TRACKED_LINKS} links untracked: no link rewritten, no pixel`, async () => {
    const html = `<html><body>${'<a href="https://many.example.test/">m</a>'.repeat(MAX_TRACKED_LINKS + 1)}</body></html>`;
    const to = 'many-links@example.test';
    const res = await s.http
      .post('/api/v1/send', basicEmail({ to, html, track: { clicks: true, opens: true } }))
      .expect(202);
    await waitForMessage(s.http, res.body.data.jobId, (m) => m.status === 'delivered', 30_000);
    const mail = await waitFor(async () => sink.messages.find((m) => m.to.includes(to)), {
      what: 'the untracked message in the sink',
    });
    expect(String(mail.parsed.html)).toBe(html);
  });
});
