// The second part of `npm run bench -- channels`: a campaign's fan-out over `contacts` contacts on
// three channels, next to an email-only campaign to the same contacts, in the same run.
//   contacts  a list of N subscribed contacts seeded in SQL: a third with a WhatsApp number, an
//             SMS number and an email address, a third with SMS and email, a third with email
//             only (values encrypted and blind-indexed as the contacts area stores them)
//   email     a campaign with channels ["email"]: every contact gets an email, delivered by the
//             worker into a counting SMTP sink
//   multi     a campaign with channels ["whatsapp", "sms", "email"]: each contact on its first
//             channel, a WhatsApp template into the WhatsApp Cloud API fake, an SMS into the
//             Twilio fake, an email into the sink (accounts with maxPerSecond 10,000)
// Each rate is messages handed to the fakes and the sink per second, from `POST …/send` until the
// last of them arrived; the fakes and the sink each run in a process of their own.
import { ChildProcess, fork } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { resolve } from 'node:path';
import { Client } from 'pg';
import {
  blindIndexOf,
  configureFieldEncryption,
  FieldCipher,
  fieldCipher,
  generateCuid,
} from '@app/domain';
import {
  admin,
  benchDatabase,
  benchEnv,
  benchKey,
  fmt,
  freePort,
  httpReady,
  liftOrgLimits,
  ROOT,
  startApp,
  stop,
  UNREACHED_KEY_LIMITS,
} from './harness';

interface Counter {
  child: ChildProcess;
  count(): Promise<number>;
}

interface Started<T> extends Counter {
  info: T;
}

function ask<T>(child: ChildProcess, command: string): Promise<T> {
  return new Promise((done) => {
    child.once('message', (m: T) => done(m));
    child.send(command);
  });
}

/** A fake or the sink in its own process; `info` is what it said once listening. */
function startProcess<T>(file: string, count: (m: unknown) => number): Promise<Started<T>> {
  const child = fork(resolve(ROOT, 'dist/bench/bench/support', file), [], {
    execArgv: ['-r', resolve(ROOT, 'scripts/alias.js')],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    detached: true,
  });
  return new Promise((done, fail) => {
    child.once('exit', (code) => fail(new Error(`${file} exited with ${code}`)));
    child.once('message', (info: T) =>
      done({ child, info, count: async () => count(await ask(child, 'count')) }),
    );
  });
}

const phoneOf = (i: number) => `+1415${String(3_000_000 + i).padStart(7, '0')}`;
const waOf = (i: number) => `+1628${String(3_000_000 + i).padStart(7, '0')}`;
const emailOf = (i: number) => `fanout-${i}@example.test`;

/** The list of `n` contacts, seeded in batches; answers its id and each channel's share. */
async function seed(db: Client, orgId: string, n: number, encryptionKey: string) {
  configureFieldEncryption(new FieldCipher(Buffer.from(encryptionKey, 'base64')));
  const cipher = fieldCipher();
  const [{ id: listId }] = (
    await db.query<{ id: string }>(
      `INSERT INTO contact_lists (organization_id, cuid, name, status, preferred_channels, is_default)
       VALUES ($1, $2, 'Fan-out', 'active', '{whatsapp,sms,email}', false) RETURNING id`,
      [orgId, generateCuid()],
    )
  ).rows;
  const BATCH = 10_000;
  for (let from = 0; from < n; from += BATCH) {
    const ids: string[] = [];
    const emails: [string[], string[]] = [[], []];
    const sms: [string[], string[], string[]] = [[], [], []];
    const wa: [string[], string[], string[]] = [[], [], []];
    for (let i = from; i < Math.min(n, from + BATCH); i++) {
      const id = randomUUID();
      ids.push(id);
      emails[0].push(cipher.encrypt(emailOf(i)));
      emails[1].push(blindIndexOf('email', emailOf(i)));
      if (i % 3 < 2)
        sms.forEach((col, k) =>
          col.push([id, cipher.encrypt(phoneOf(i)), blindIndexOf('phone', phoneOf(i))][k]),
        );
      if (i % 3 === 0)
        wa.forEach((col, k) =>
          col.push([id, cipher.encrypt(waOf(i)), blindIndexOf('phone', waOf(i))][k]),
        );
    }
    await db.query(
      `INSERT INTO contacts (id, organization_id, first_name, status)
       SELECT id, $2, 'Contact', 'active' FROM unnest($1::uuid[]) AS id`,
      [ids, orgId],
    );
    await db.query(
      `INSERT INTO contact_emails (organization_id, contact_id, email, email_hash, status, is_primary)
       SELECT $1, c, e, h, 'verified', true FROM unnest($2::uuid[], $3::text[], $4::text[]) AS v(c, e, h)`,
      [orgId, ids, ...emails],
    );
    for (const [table, rows] of [
      ['contact_sms', sms],
      ['contact_whatsapp', wa],
    ] as const) {
      await db.query(
        `INSERT INTO ${table} (organization_id, contact_id, phone_number, phone_hash, country_code, status, is_primary)
         SELECT $1, c, p, h, 'US', 'verified', true FROM unnest($2::uuid[], $3::text[], $4::text[]) AS v(c, p, h)`,
        [orgId, ...rows],
      );
    }
    await db.query(
      `INSERT INTO contact_list_memberships (organization_id, contact_id, contact_list_id, status)
       SELECT $1, c, $3, 'subscribed' FROM unnest($2::uuid[]) AS c`,
      [orgId, ids, listId],
    );
  }
  await db.query(`UPDATE contact_lists SET subscriber_count = $2 WHERE id = $1`, [listId, n]);
  await db.query(`VACUUM ANALYZE`);
  const whatsapp = Math.ceil(n / 3);
  const sms = Math.ceil((n - 1) / 3);
  return { listId, shares: { whatsapp, sms, email: n - whatsapp - sms } };
}

type Receivers = Awaited<ReturnType<typeof startReceivers>>;

/** The SMTP sink and the two provider fakes, each in a process of its own. */
async function startReceivers() {
  const started: Counter[] = [];
  try {
    const sink = await startProcess<{ port: number }>(
      'sink-process.js',
      (m) => (m as { count: number }).count,
    );
    started.push(sink);
    const twilio = await startProcess<{ baseUrl: string; accountSid: string; authToken: string }>(
      'twilio-fake-process.js',
      (m) => (m as { accepted: number }).accepted,
    );
    started.push(twilio);
    const whatsapp = await startProcess<{
      baseUrl: string;
      accessToken: string;
      appSecret: string;
      phoneNumberId: string;
    }>('whatsapp-fake-process.js', (m) => (m as { accepted: number }).accepted);
    return { sink, twilio, whatsapp };
  } catch (err) {
    for (const c of started) c.child.send('stop');
    throw err;
  }
}

/** Runs the two fan-outs; answers the lines to print. */
export async function campaignFanoutBench(n: number): Promise<string[]> {
  const receivers = await startReceivers();
  try {
    return await run(n, receivers);
  } finally {
    for (const c of Object.values(receivers)) c.child.send('stop');
  }
}

async function run(n: number, { sink, twilio, whatsapp }: Receivers): Promise<string[]> {
  const apiPort = await freePort();
  const healthPort = await freePort();
  const api = `http://127.0.0.1:${apiPort}`;
  const dbUrl = await benchDatabase('mp_bench_fanout');
  const env = benchEnv(dbUrl, {
    PORT: String(apiPort),
    PUBLIC_BASE_URL: api,
    WORKER_HEALTH_PORT: String(healthPort),
    INBOUND_SMTP_PORT: String(await freePort()),
    SMTP_PORT: String(await freePort()),
    SMTP_OUTBOUND_URL: `smtp://127.0.0.1:${sink.info.port}`,
    WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
    SEND_IP_ALLOWLIST: '127.0.0.1,::1',
    RUN_MIGRATIONS: 'false',
  });
  admin(env, ['migrate']);
  const orgId = (
    admin(env, ['create-org', '--name', 'fan-out bench', '--plan', 'enterprise']) as {
      organization: { id: string };
    }
  ).organization.id;
  liftOrgLimits(env, orgId);
  const key = benchKey(env, orgId, 'bench', 'all', UNREACHED_KEY_LIMITS);
  const db = new Client({ connectionString: dbUrl });
  await db.connect();
  const started = Date.now();
  const { listId, shares } = await seed(db, orgId, n, env.ENCRYPTION_KEY!);
  process.stderr.write(
    `fan-out: ${n} contacts seeded in ${((Date.now() - started) / 1000).toFixed(1)} s\n`,
  );

  const apiApp = await startApp('api', env, () => httpReady(`${api}/health`), { ownSession: true });
  let worker: ChildProcess | undefined;
  try {
    worker = await startApp(
      'worker',
      env,
      () => httpReady(`http://127.0.0.1:${healthPort}/health`),
      {
        ownSession: true,
      },
    );
    const call = async (path: string, body: unknown): Promise<{ data: { id: string } }> => {
      const res = await fetch(`${api}${path}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'X-API-Key': key },
        body: JSON.stringify(body),
      });
      const text = await res.text();
      if (!res.ok) throw new Error(`POST ${path}: ${res.status} ${text}`);
      return JSON.parse(text) as { data: { id: string } };
    };
    await call('/api/v1/user/channel-providers', {
      channel: 'sms',
      provider: 'twilio',
      name: 'Twilio fake',
      credentials: { accountSid: twilio.info.accountSid, authToken: twilio.info.authToken },
      settings: { from: '+15005550006', apiBaseUrl: twilio.info.baseUrl },
      maxPerSecond: 10_000,
    });
    await call('/api/v1/user/channel-providers', {
      channel: 'whatsapp',
      provider: 'whatsapp-cloud',
      name: 'WhatsApp fake',
      credentials: { accessToken: whatsapp.info.accessToken, appSecret: whatsapp.info.appSecret },
      settings: { phoneNumberId: whatsapp.info.phoneNumberId, apiBaseUrl: whatsapp.info.baseUrl },
      maxPerSecond: 10_000,
    });
    const counters = [sink, twilio, whatsapp];
    const received = async () =>
      (await Promise.all(counters.map((c) => c.count()))).reduce((a, b) => a + b, 0);
    /** One campaign on `channels`, from its send to the last message handed over: messages/s. */
    const fanout = async (name: string, channels: string[]) => {
      const campaign = await call('/api/v1/user/campaigns', {
        name,
        listId,
        channels,
        subject: 'Spring sale',
        from: 'Shop <news@shop.example>',
        text: 'Twenty percent off until Sunday.',
        content: {
          sms: { text: 'Spring sale: 20% off until Sunday. Reply STOP to opt out' },
          whatsapp: { template: { name: 'hello_world', language: 'en_US' } },
        },
      });
      const before = await received();
      const t0 = Date.now();
      await call(`/api/v1/user/campaigns/${campaign.data.id}/send`, {});
      const deadline = t0 + 30 * 60_000;
      for (;;) {
        const got = (await received()) - before;
        if (got >= n) break;
        if (Date.now() > deadline) throw new Error(`${name}: ${got} of ${n} messages handed over`);
        await new Promise((r) => setTimeout(r, 250));
      }
      const seconds = (Date.now() - t0) / 1000;
      process.stderr.write(`fan-out ${name}: ${n} messages in ${seconds.toFixed(1)} s\n`);
      return n / seconds;
    };
    const email = await fanout('email only', ['email']);
    const multi = await fanout('three channels', ['whatsapp', 'sms', 'email']);
    return [
      `fan-out   ${fmt(n)} contacts (a third each reached first on WhatsApp, SMS, email), from the send to the last message handed to the fakes and the SMTP sink`,
      `email     channels ["email"]: ${fmt(email)} messages/s`,
      `multi     channels ["whatsapp", "sms", "email"] (${fmt(shares.whatsapp)} / ${fmt(shares.sms)} / ${fmt(shares.email)}): ${fmt(multi)} messages/s, ${fmt(multi / email, 2)} × email only`,
    ];
  } finally {
    await db.end();
    if (worker) await stop(worker);
    await stop(apiApp);
  }
}
