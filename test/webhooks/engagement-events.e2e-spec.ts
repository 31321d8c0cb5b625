// §16: email.opened / email.clicked take the durable path of every other event. A tracking hit
// answers only once its webhook deliveries are stored in PostgreSQL, and every hit raised while
// the webhook store is held up and the receiver is down is delivered in the end, however many.
// The store is held up for real: another connection locks webhook_deliveries against writes.
import { INestApplication } from '@nestjs/common';
import { Agent, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { EngagementStore } from '@app/domain';
import { createSession, Session } from '../support/session';
import { startSmtpSink, SmtpSink } from '../sending/support/smtp-sink';
import { createApiApp, createWorker, Receiver, testConfig } from './webhook-support';
import { holdsFor, waitFor } from '../support/wait-for';

const ENGAGEMENT_TYPES = ['email.opened', 'email.clicked'];

interface Hit {
  status: number;
}

describe('email.opened / email.clicked are stored before the hit answers (e2e)', () => {
  let sink: SmtpSink;
  let api: INestApplication;
  let worker: INestApplication;
  let receiver: Receiver;
  let s: Session;
  let base: string;
  let ds: DataSource;
  let db: Client;
  let messageId: string;
  let openToken: string;
  let clickToken: string;
  const agent = new Agent({ keepAlive: false, maxSockets: Infinity });

  /** One GET of a tracking URL from a real client; resolves with its status. */
  const hit = (path: string): Promise<Hit> =>
    new Promise((resolve, reject) => {
      const req = httpRequest(`${base}${path}`, { agent }, (res) => {
        res.resume().on('end', () => resolve({ status: res.statusCode! }));
      });
      req.on('error', reject).end();
    });

  /** A connection of its own holding webhook_deliveries against writes until released. */
  async function lockDeliveries(): Promise<() => Promise<void>> {
    const client = new Client({ connectionString: process.env.DATABASE_URL });
    await client.connect();
    await client.query('BEGIN');
    await client.query('LOCK TABLE webhook_deliveries IN EXCLUSIVE MODE');
    return async () => {
      await client.query('COMMIT');
      await client.end();
    };
  }

  // Counted over a connection of the test's own: the api's pool may be busy with the hits.
  const engagementRows = async (): Promise<number> => {
    const {
      rows: [row],
    } = await db.query(
      `SELECT count(*)::int AS n FROM engagement_events WHERE organization_id = $1 AND message_id = $2`,
      [s.org.id, messageId],
    );
    return row.n;
  };

  const storedDeliveries = async (): Promise<number> => {
    const {
      rows: [row],
    } = await db.query(
      `SELECT count(*)::int AS n FROM webhook_deliveries WHERE organization_id = $1 AND type = ANY($2)`,
      [s.org.id, ENGAGEMENT_TYPES],
    );
    return row.n;
  };

  beforeAll(async () => {
    sink = await startSmtpSink();
    const config = testConfig('engagement-events', {
      webhookAllowPrivateTargets: true,
      smtpOutboundUrl: sink.url,
      publicBaseUrl: 'https://track.example.test',
      sendIpAllowlist: ['127.0.0.1', '::1'],
      webhookRetryBaseMs: 200,
      webhookScanIntervalMs: 200,
    });
    api = await createApiApp(config);
    await api.listen(0, '127.0.0.1');
    base = `http://127.0.0.1:${(api.getHttpServer().address() as AddressInfo).port}`;
    ds = api.get(DataSource);
    db = new Client({ connectionString: process.env.DATABASE_URL });
    await db.connect();
    worker = await createWorker(config);
    receiver = await new Receiver().start();
    s = await createSession(api, { plan: 'pro' });
    await s.http
      .post('/api/v1/user/webhook-endpoints', {
        url: `${receiver.url}/engagement`,
        events: ENGAGEMENT_TYPES,
        maxRetries: 20,
      })
      .expect(201);

    const sent = await s.http
      .post('/api/v1/send', {
        from: 'Sender <sender@sender.test>',
        to: 'reader@example.test',
        subject: 'Hello',
        html: '<p>Hi</p><a href="https://shop.example.test/p">Buy</a>',
        track: { opens: true, clicks: true },
      })
      .expect(202);
    const mail = await waitFor(
      () => sink.messages.find((m) => m.parsed.messageId === sent.body.data.messageId),
      { what: 'the tracked mail' },
    );
    const html = String(mail.parsed.html);
    openToken = /\/t\/o\/([A-Za-z0-9_-]+)\.gif/.exec(html)![1];
    clickToken = /\/t\/c\/([A-Za-z0-9_-]+)"/.exec(html)![1];
    [{ id: messageId }] = await ds.query(
      `SELECT id FROM messages WHERE organization_id = $1 AND job_id = $2`,
      [s.org.id, sent.body.data.jobId],
    );
    // The engagement store creates its table on first use; the counts below read it from the start.
    await api.get(EngagementStore).forMessage(s.org.id, messageId, 1);
  }, 60_000);

  afterAll(async () => {
    agent.destroy();
    await db?.end();
    await worker?.close();
    await api?.close();
    await receiver?.stop();
    await sink?.close();
  });

  it('answers the pixel and the redirect only once their deliveries are in PostgreSQL', async () => {
    for (const path of [`/t/o/${openToken}.gif`, `/t/c/${clickToken}`]) {
      const before = await storedDeliveries();
      const engaged = await engagementRows();
      const release = await lockDeliveries();
      let answered = false;
      const pending = hit(path).then((h) => ((answered = true), h));
      try {
        // The hit is under way (its engagement row is written); its delivery cannot be stored.
        await waitFor(async () => (await engagementRows()) > engaged, { what: 'the hit' });
        await holdsFor(() => expect(answered).toBe(false));
      } finally {
        await release();
      }
      expect([200, 302]).toContain((await pending).status);
      expect(await storedDeliveries()).toBe(before + 1);
    }
  });

  it('delivers every one of 1,200 hits raised while the store is held up and the receiver down', async () => {
    const N = 1200;
    // Deliveries of this test only (the previous test's may still be on their way).
    const { rows: earlier } = await db.query<{ id: string }>(
      `SELECT id FROM webhook_deliveries WHERE organization_id = $1 AND type = ANY($2)`,
      [s.org.id, ENGAGEMENT_TYPES],
    );
    const ignore = new Set(earlier.map((r) => r.id));
    const seen = new Set<string>();
    let up = false;
    receiver.behaviour = (r) => {
      if (!up) return 'destroy';
      const id = String(r.headers['x-webhook-delivery-id']);
      if (!ignore.has(id)) seen.add(id);
      return { status: 200 };
    };
    const before = await storedDeliveries();
    const engaged = await engagementRows();

    const release = await lockDeliveries();
    const hits: Promise<Hit>[] = [];
    try {
      // In waves, each under way (its engagement row written) before the next: the engagement
      // store, a pool of its own, takes them at its pace, and the webhook events pile up.
      for (let wave = 0; wave < N / 200; wave++) {
        for (let i = 0; i < 200; i++) {
          hits.push(hit(i % 2 ? `/t/c/${clickToken}` : `/t/o/${openToken}.gif`));
        }
        await waitFor(async () => (await engagementRows()) - engaged >= hits.length, {
          what: `${hits.length} hits under way`,
          timeoutMs: 30_000,
        });
      }
    } finally {
      await release();
    }
    const answers = await Promise.all(hits);
    expect(answers.filter((h) => h.status !== 200 && h.status !== 302)).toEqual([]);

    // Attempted while the receiver is down, then sent again once it is back.
    await waitFor(
      () => receiver.requests.some((r) => !ignore.has(String(r.headers['x-webhook-delivery-id']))),
      { what: 'an attempt while the receiver is down' },
    );
    up = true;
    await waitFor(async () => (await storedDeliveries()) - before >= N, {
      what: `${N} stored deliveries`,
      timeoutMs: 30_000,
    });
    await waitFor(() => seen.size >= N, { what: `${N} delivered`, timeoutMs: 60_000 });
    expect(await storedDeliveries()).toBe(before + N);
    expect(seen.size).toBe(N);
  }, 180_000);
});
