// Two of each app on a Redis Cluster, an S3 store and one PostgreSQL behave as one (§18):
// organization limits stay exact, no message is lost or delivered twice, an import crosses hosts,
// periodic tasks run once per period, and a worker killed mid-campaign or a Redis master
// restarted loses nothing acknowledged.
import { existsSync, readdirSync } from 'node:fs';
import { createTransport } from 'nodemailer';
import { contactsCsv, startImport, waitImportDone } from '../resilience/faults/imports';
import type { SinkMessage } from '../sending/support/smtp-sink';
import { waitFor } from '../support/wait-for';
import { client, dataOf, PERIOD_MS, startTopology, Topology } from './support/topology';

jest.setTimeout(120_000);

let t: Topology;
/** The organization of every test but the limits one: each test sends under its own subject. */
let shared: { id: string; key: string };

beforeAll(async () => {
  t = await startTopology();
  shared = t.createOrg('Scale');
}, 180_000);
afterAll(() => t?.stop());

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The sink's messages of one subject (each test sends its own). */
const atSink = (subject: string): SinkMessage[] =>
  t.sink.messages.filter((m) => m.parsed.subject === subject);

/** A send through api `i` (HTTP) or relay `i` (SMTP): its status, or the relay's reply code. */
async function sendVia(
  kind: 'api' | 'relay',
  i: number,
  key: string,
  subject: string,
  to: string,
): Promise<{ status: number; retryAfter?: string }> {
  if (kind === 'api') {
    const res = await fetch(`${t.apiUrl(i)}/api/v1/send`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify({ from: 'Shop <news@scale.test>', to: [to], subject, text: 'Hello' }),
    });
    await res.arrayBuffer();
    return { status: res.status, retryAfter: res.headers.get('retry-after') ?? undefined };
  }
  const transport = createTransport({
    host: '127.0.0.1',
    port: t.relays[i].port,
    secure: false,
    ignoreTLS: true,
    auth: { user: 'scale', pass: key },
  });
  try {
    await transport.sendMail({ from: 'news@scale.test', to, subject, text: 'Hello' });
    return { status: 250 };
  } catch (err) {
    return { status: (err as { responseCode?: number }).responseCode ?? 0 };
  } finally {
    transport.close();
  }
}

/** Waits out the end of the current UTC hour when less than `ms` of it is left. */
async function awayFromHourEdge(ms: number): Promise<void> {
  const left = 3_600_000 - (Date.now() % 3_600_000);
  if (left < ms) await sleep(left + 200);
}

describe('replicas on a Redis Cluster and S3 storage', () => {
  it('keep an organization limit exact: sends spread over both apis and both relays accept exactly the limit', async () => {
    const org = t.createOrg('Scale limits');
    // An hourly window (reset at the start of each hour) the burst cannot straddle.
    t.admin(['set-limits', '--org', org.id, '--per-hour', '40']);
    await awayFromHourEdge(20_000);
    const subject = `limits ${Date.now()}`;
    const tries = Array.from({ length: 100 }, (_, n) =>
      sendVia(n % 2 ? 'api' : 'relay', (n >> 1) % 2, org.key, subject, `l${n}@rcpt.test`),
    );
    const results = await Promise.all(tries);
    const accepted = results.filter((r) => r.status === 202 || r.status === 250).length;
    const refused = results.filter((r) => r.status === 429 || r.status === 451).length;
    expect({ accepted, refused }).toEqual({ accepted: 40, refused: 60 });
    await waitFor(() => atSink(subject).length >= 40, { what: '40 deliveries', timeoutMs: 30_000 });
    await sleep(500);
    expect(atSink(subject)).toHaveLength(40);
  });

  it('deliver every accepted message once: none lost, no Message-ID twice at the sink', async () => {
    const org = shared;
    const subject = `once ${Date.now()}`;
    const results = await Promise.all(
      Array.from({ length: 200 }, (_, n) =>
        sendVia(n % 4 < 2 ? 'api' : 'relay', n % 2, org.key, subject, `o${n}@rcpt.test`),
      ),
    );
    expect(results.filter((r) => r.status !== 202 && r.status !== 250)).toEqual([]);
    await waitFor(() => atSink(subject).length >= 200, {
      what: '200 deliveries',
      timeoutMs: 60_000,
    });
    await sleep(1000);
    const ids = atSink(subject).map((m) => m.parsed.messageId);
    expect(new Set(ids).size).toBe(200);
    expect(ids).toHaveLength(200);
  });

  it('process an import uploaded through one api by the worker of the other host, its errors file readable through either api', async () => {
    const org = shared;
    // Host 1's worker is down: only host 2's can take the job, and it shares no disk with api 1.
    await t.workers[0].proc.stop('SIGTERM');
    try {
      const { csv, expected } = contactsCsv(500, 'scale');
      const id = await startImport(client(t, 0, org.key), csv, 'Scale audience');
      const done = await waitImportDone(client(t, 1, org.key), id, 60_000);
      expect(done).toMatchObject({
        status: 'completed_with_errors',
        errorCount: expected.invalid,
        newCount: expected.new,
        duplicateCount: expected.duplicates,
      });
      const ran = t.logLines('worker-2').some((l) => JSON.stringify(l).includes(id));
      expect(ran).toBe(true);
      const errorFiles = await Promise.all(
        [0, 1].map(async (i) => {
          const res = await fetch(`${t.apiUrl(i)}/api/v1/user/contact-imports/${id}/errors`, {
            headers: { 'x-api-key': org.key },
          });
          return { status: res.status, text: await res.text() };
        }),
      );
      expect(errorFiles.map((f) => f.status)).toEqual([200, 200]);
      expect(errorFiles[1].text).toBe(errorFiles[0].text);
      expect(errorFiles[0].text.trim().split('\n')).toHaveLength(expected.invalid + 1);
      // Nothing of the import is on either host's own disk.
      for (const r of [...t.apis, ...t.workers]) {
        const files = existsSync(r.dataDir)
          ? (readdirSync(r.dataDir, { recursive: true }) as string[])
          : [];
        expect(files.filter((f) => f.includes(id))).toEqual([]);
      }
    } finally {
      await t.restart(t.workers[0], 'SIGTERM');
    }
  });

  it('deliver a 2,000-recipient campaign to everyone when a worker is SIGKILLed mid-way; a second copy keeps the first one’s Message-ID', async () => {
    const org = shared;
    const http = client(t, 0, org.key);
    const { csv, emails } = contactsCsv(2060, 'cmp');
    const importId = await startImport(http, csv, 'Campaign audience');
    await waitImportDone(http, importId, 60_000);
    const list = await t.db.query<{ id: string }>(
      `SELECT id FROM contact_lists WHERE organization_id = $1 AND name = 'Campaign audience'`,
      [org.id],
    );
    const subject = `campaign ${Date.now()}`;
    const campaign = dataOf<{ id: string }>(
      await http.post('/api/v1/user/campaigns', {
        name: 'Scale',
        subject,
        html: '<p>Hello</p>',
        text: 'Hello',
        from: 'Shop <news@scale.test>',
        listId: list.rows[0].id,
      }),
      'create campaign',
      [201],
    );
    const sent = dataOf<{ recipientCount: number }>(
      await http.post(`/api/v1/user/campaigns/${campaign.id}/send`),
      'send campaign',
      [202],
    );
    const recipients = new Set(emails.map((e) => e.toLowerCase()));
    expect(recipients.size).toBeGreaterThanOrEqual(2000);
    expect(sent.recipientCount).toBe(recipients.size);
    await waitFor(() => atSink(subject).length >= recipients.size * 0.25, {
      what: 'a quarter of the campaign at the sink',
      timeoutMs: 60_000,
      everyMs: 20,
    });
    await t.workers[1].proc.stop('SIGKILL');
    const restarted = t.restart(t.workers[1], 'SIGKILL');

    const final = await waitFor(
      async () => {
        const v = dataOf<{ status: string; sentCount: number; failedCount: number }>(
          await http.get(`/api/v1/user/campaigns/${campaign.id}`),
          'read campaign',
        );
        return v.status !== 'sending' && v;
      },
      { what: 'the campaign to be sent', timeoutMs: 90_000, everyMs: 500 },
    );
    await restarted;
    expect(final).toMatchObject({ status: 'sent', sentCount: recipients.size, failedCount: 0 });
    const byRecipient = new Map<string, Set<string>>();
    await waitFor(
      () => {
        byRecipient.clear();
        for (const m of atSink(subject))
          for (const to of m.to) {
            const ids = byRecipient.get(to.toLowerCase()) ?? new Set<string>();
            ids.add(m.parsed.messageId ?? '');
            byRecipient.set(to.toLowerCase(), ids);
          }
        return byRecipient.size >= recipients.size;
      },
      { what: 'every recipient at the sink', timeoutMs: 60_000, everyMs: 200 },
    );
    expect([...recipients].filter((e) => !byRecipient.has(e))).toEqual([]);
    expect([...byRecipient.keys()].filter((e) => !recipients.has(e))).toEqual([]);
    // A copy delivered twice (a transaction in flight when the worker died) is the same message.
    expect([...byRecipient.values()].filter((ids) => ids.size !== 1)).toEqual([]);
    // At most what the killed worker had on the wire: DELIVERY_CONCURRENCY (50) transactions.
    const copies = atSink(subject).length - recipients.size;
    expect(copies).toBeLessThanOrEqual(50);
  });

  it('answer 503 with Retry-After at worst while a Redis master is down, and deliver everything acknowledged', async () => {
    const org = shared;
    const subject = `outage ${Date.now()}`;
    const results: { status: number; retryAfter?: string }[] = [];
    let n = 0;
    let sending = true;
    const loops = Array.from({ length: 8 }, async (_, lane) => {
      while (sending) {
        const i = n++;
        results.push(
          await sendVia(
            lane % 2 ? 'relay' : 'api',
            (lane % 4) >> 1,
            org.key,
            subject,
            `r${i}@rcpt.test`,
          ),
        );
      }
    });
    // The master of this organization's sending-limit counters: every send needs it.
    const master = await t.cluster.masterOf(`sl:{org:${org.id}}`);
    await sleep(1500);
    await t.cluster.stopNode(master);
    await sleep(3000);
    await t.cluster.startNode(master);
    await sleep(3000);
    sending = false;
    await Promise.all(loops);

    // The outage was seen: some requests were refused for it, never with anything else.
    expect(results.filter((r) => [503, 451, 421].includes(r.status)).length).toBeGreaterThan(0);
    const api503 = results.filter((r) => r.status === 503);
    expect(api503.every((r) => Number(r.retryAfter) > 0)).toBe(true);
    const unexpected = results.filter((r) => ![202, 250, 503, 451, 421].includes(r.status));
    expect(unexpected).toEqual([]);
    const acknowledged = results.filter((r) => r.status === 202 || r.status === 250).length;
    expect(acknowledged).toBeGreaterThan(20);
    await waitFor(() => atSink(subject).length >= acknowledged, {
      what: `${acknowledged} acknowledged messages at the sink`,
      timeoutMs: 60_000,
      everyMs: 200,
    });
  });

  it('run each periodic task once per period across both workers', () => {
    const runs = new Map<string, number[]>();
    for (const w of t.workers)
      for (const l of t.logLines(w.name)) {
        const task = /^(\w+) ran$/.exec(String(l.msg))?.[1];
        if (!task || l.scope !== 'cluster') continue;
        // A run's line is written when it ends, `ms` after it started.
        const started = Date.parse(String(l.time)) - Number(l.ms);
        runs.set(task, [...(runs.get(task) ?? []), started]);
      }
    // Sweeps, retention, domain re-checks, purges, import housekeeping: each at PERIOD_MS or a
    // longer period of its own, several times during the suite.
    expect([...runs.keys()].length).toBeGreaterThanOrEqual(4);
    for (const [task, list] of runs) {
      const times = list.sort((a, b) => a - b);
      const gaps = times.slice(1).map((at, i) => at - times[i]);
      expect({ task, tooClose: gaps.filter((g) => g < PERIOD_MS * 0.8) }).toEqual({
        task,
        tooClose: [],
      });
    }
  });
});
