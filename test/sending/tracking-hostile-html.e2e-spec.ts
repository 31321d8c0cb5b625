// §16: tracked HTML is rewritten without holding the worker's event loop. A send of about 5 MB of
// pathological HTML with open and click tracking goes through the worker (in this process): its
// tokenizer is given at most SCAN_CHUNK_CHARS at a time, each piece in an event-loop turn of its
// own, and its links are signed at most LINKS_PER_TURN per turn; the message reaches the SMTP sink
// tracked, with everything but the links and the pixel intact. That a piece costs linear time is
// the html-rewriter spec's check; the worker's /health answers during such a send are a bench
// (`npm run bench -- tracked-html`).
import { INestApplication } from '@nestjs/common';
import { TestingModule } from '@nestjs/testing';
import {
  LINKS_PER_TURN,
  MAX_TRACKED_HTML_BYTES,
  MAX_TRACKED_LINKS,
  SCAN_CHUNK_CHARS,
  TrackingTokens,
} from '@app/domain';
import { Tokenizer } from 'htmlparser2';
import { turnCounter } from '../support/event-loop';
import { hostileTrackedHtml } from '../support/hostile-html';
import { Session } from '../support/session';
import { SmtpSink } from './support/smtp-sink';
import {
  basicEmail,
  startDeliveryStack,
  stopDeliveryStack,
  waitForMessage,
} from './support/sending';
import { waitFor } from '../support/wait-for';

const RECIPIENT = 'hostile@example.test';

describe('Tracked HTML of hostile shape (worker)', () => {
  let sink: SmtpSink;
  let app: INestApplication;
  let worker: TestingModule;
  let s: Session;

  beforeAll(async () => {
    ({ sink, app, worker, s } = await startDeliveryStack({
      PUBLIC_BASE_URL: 'https://track.example.test',
    }));
  });
  afterAll(() => stopDeliveryStack({ sink, app, worker }));
  afterEach(() => jest.restoreAllMocks());

  it('tracks about 5 MB of pathological HTML a bounded piece per event-loop turn, changing only the links and the pixel', async () => {
    const { html, tail, links } = hostileTrackedHtml();
    expect(Buffer.byteLength(html)).toBeLessThanOrEqual(MAX_TRACKED_HTML_BYTES);
    expect(Buffer.byteLength(html)).toBeGreaterThan(MAX_TRACKED_HTML_BYTES - 1024);

    // What the worker's tokenizer is given, and what it signs, each with the turn it happened in.
    const counter = turnCounter();
    const pieces: { chars: number; turn: number }[] = [];
    const write = Tokenizer.prototype.write;
    jest.spyOn(Tokenizer.prototype, 'write').mockImplementation(function (
      this: Tokenizer,
      chunk: string,
    ) {
      pieces.push({ chars: chunk.length, turn: counter.turns() });
      return write.call(this, chunk);
    });
    const signedIn = new Map<number, number>();
    const sign = TrackingTokens.prototype.sign;
    jest.spyOn(TrackingTokens.prototype, 'sign').mockImplementation(function (
      this: TrackingTokens,
      claims,
    ) {
      const turn = counter.turns();
      signedIn.set(turn, (signedIn.get(turn) ?? 0) + 1);
      return sign.call(this, claims);
    });

    try {
      const res = await s.http
        .post(
          '/api/v1/send',
          basicEmail({ to: RECIPIENT, html, track: { clicks: true, opens: true } }),
        )
        .expect(202);
      await waitForMessage(s.http, res.body.data.jobId, (m) => m.status === 'delivered', 60_000);
    } finally {
      counter.stop();
    }

    // The whole body went through the tokenizer, never more than a piece at a time, and no two
    // pieces in one turn of the event loop.
    expect(pieces.reduce((sum, p) => sum + p.chars, 0)).toBe(html.length);
    expect(pieces).toHaveLength(Math.ceil(html.length / SCAN_CHUNK_CHARS));
    expect(pieces.filter((p) => p.chars > SCAN_CHUNK_CHARS)).toEqual([]);
    const sharedTurns = pieces.filter((p, i) => i > 0 && p.turn <= pieces[i - 1].turn);
    expect(sharedTurns).toEqual([]);
    // Every link and the pixel signed, at most LINKS_PER_TURN in a turn.
    expect([...signedIn.values()].reduce((a, b) => a + b, 0)).toBe(links + 1);
    expect(Math.max(...signedIn.values())).toBeLessThanOrEqual(LINKS_PER_TURN);

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
