// `mp-admin rotate-keys` re-encrypts every encrypted column (§5): rows written under a key that is
// now in ENCRYPTION_KEYS_OLD all read with the new key alone afterwards, DKIM private keys, message
// contents, raw mail and provider credentials included, and the result counts what was rewritten
// per table and column.
import { INestApplication } from '@nestjs/common';
import { randomBytes, randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import {
  blindIndexOf,
  ENCRYPTED_COLUMNS,
  FieldCipher,
  fieldCipher,
  InboundMessageRepository,
  normaliseEmail,
  SendingDomainService,
} from '@app/domain';
import { runAdmin } from '../../apps/api/src/cli';
import { createTestApp } from '../support/app';
import { createSession, Session } from '../support/session';

describe('rotate-keys', () => {
  const saved = { key: process.env.ENCRYPTION_KEY, old: process.env.ENCRYPTION_KEYS_OLD };
  const oldKey = randomBytes(32).toString('base64');
  const newKey = randomBytes(32).toString('base64');
  let app: INestApplication;
  let s: Session;

  afterAll(async () => {
    await app?.close();
    process.env.ENCRYPTION_KEY = saved.key;
    if (saved.old === undefined) delete process.env.ENCRYPTION_KEYS_OLD;
    else process.env.ENCRYPTION_KEYS_OLD = saved.old;
  });

  it('leaves no value of the organization under the old key', async () => {
    // Everything written under the old key, through the product's own paths.
    process.env.ENCRYPTION_KEY = oldKey;
    delete process.env.ENCRYPTION_KEYS_OLD;
    app = await createTestApp();
    s = await createSession(app, { plan: 'pro' });
    const oldId = fieldCipher().currentKeyId;
    await s.http
      .post('/api/v1/user/contacts', { emails: [{ email: `kept-${randomUUID()}@example.test` }] })
      .expect(201);
    await s.http
      .post('/api/v1/user/webhook-endpoints', {
        url: 'https://hooks.example.test/events',
        events: ['email.sent'],
        customHeaders: [{ key: 'X-Tenant', value: 'acme' }],
      })
      .expect(201);
    await app.get(SendingDomainService).create(s.org.id, { name: 'mail.rotation.test' });
    const twilio = { accountSid: `AC${'a'.repeat(32)}`, authToken: randomUUID() };
    await s.http
      .post('/api/v1/user/channel-providers', {
        channel: 'sms',
        provider: 'twilio',
        name: 'Twilio',
        credentials: twilio,
        settings: { from: '+14155550100' },
      })
      .expect(201);
    await s.http
      .post('/api/v1/send', {
        from: 'Sender <sender@mail.rotation.test>',
        to: 'someone@example.test',
        subject: 'Hello',
        text: 'Hello there',
      })
      .expect(202);
    const ds0 = app.get(DataSource);
    // A push message: its recipient, a device token, is indexed case-sensitively as tokens are.
    const token = `fcm-Token_${randomUUID()}`;
    const pushJob = (
      await s.http
        .post('/api/v1/send/sms', { to: { phoneNumber: '+14155550100' }, content: { text: 'x' } })
        .expect(202)
    ).body.data.jobId as string;
    await ds0.query(
      `WITH m AS (UPDATE messages SET channel = 'push' WHERE job_id = $1 RETURNING id)
       UPDATE message_recipients SET address = $2, address_hash = $3
        WHERE message_id = (SELECT id FROM m)`,
      [pushJob, fieldCipher().encrypt(token), blindIndexOf('token', token)],
    );
    const inboundId = await new InboundMessageRepository(ds0).store(
      {
        kind: 'bounce',
        recipients: ['bounces@rotation.test'],
        raw: Buffer.from(`From: mailer-daemon@example.test\r\nSubject: ${randomUUID()}\r\n\r\nx`),
        remoteIp: '192.0.2.7',
      },
      new Date(),
    );
    await ds0.query(`UPDATE inbound_messages SET organization_id = $1 WHERE id = $2`, [
      s.org.id,
      inboundId,
    ]);
    await app.close();

    // The operator's rotation: the new key current, the old one still readable.
    process.env.ENCRYPTION_KEY = newKey;
    process.env.ENCRYPTION_KEYS_OLD = oldKey;
    app = await createTestApp();
    const out = (await runAdmin(['rotate-keys', '--org', s.org.id, '--batch-size', '1', '--json']))
      .rotation as {
      keyId: string;
      tables: { table: string; rotated: number; columns: Record<string, number> }[];
    };
    expect(out.keyId).not.toBe(oldId);
    const byTable = Object.fromEntries(out.tables.map((t) => [t.table, t]));
    expect(byTable).toMatchObject({
      contact_emails: { rotated: 1, columns: { email: 1 } },
      messages: { rotated: 2, columns: { content: 2 } },
      message_recipients: { rotated: 2, columns: { address: 2 } },
      webhook_endpoints: { rotated: 1, columns: { secret: 1, custom_headers: 1 } },
      webhook_deliveries: { rotated: 1, columns: { data: 1 } },
      sending_domains: { rotated: 1, columns: { dkim_private_key: 1 } },
      channel_providers: { rotated: 1, columns: { credentials: 1 } },
      inbound_messages: { rotated: 1, columns: { raw: 1 } },
    });

    // With the new key alone, every encrypted value of the organization reads, and the blind
    // indexes are the new key's.
    const only = new FieldCipher(Buffer.from(newKey, 'base64'));
    const ds = app.get(DataSource);
    let values = 0;
    for (const spec of ENCRYPTED_COLUMNS) {
      const rows: Record<string, string | Buffer | null>[] = await ds.query(
        `SELECT * FROM ${spec.table} WHERE organization_id = $1`,
        [s.org.id],
      );
      for (const row of rows) {
        for (const c of spec.columns) {
          const v = row[c.column];
          if (v === null || (typeof v === 'string' && !v.startsWith('v1:'))) continue;
          const plain = Buffer.isBuffer(v) ? only.decryptBytes(v).toString() : only.decrypt(v);
          values++;
          if (c.hash?.kind === 'email' && !c.hash.kindOf)
            expect(row[c.hash.column]).toBe(only.blindIndex(normaliseEmail(plain)));
        }
      }
    }
    expect(values).toBeGreaterThanOrEqual(9);
    const recipients: { channel: string; address: string; address_hash: string }[] = await ds.query(
      `SELECT m.channel, r.address, r.address_hash FROM message_recipients r
         JOIN messages m ON m.id = r.message_id WHERE r.organization_id = $1 ORDER BY m.channel`,
      [s.org.id],
    );
    expect(recipients.map((r) => [r.channel, only.decrypt(r.address), r.address_hash])).toEqual([
      ['email', 'someone@example.test', only.blindIndex('someone@example.test')],
      ['push', token, only.blindIndex(token)],
    ]);
    const [dkim] = await ds.query(
      `SELECT dkim_private_key AS k FROM sending_domains WHERE organization_id = $1`,
      [s.org.id],
    );
    expect(only.decrypt(dkim.k)).toMatch(/^-----BEGIN PRIVATE KEY-----/);
    const [provider] = await ds.query(
      `SELECT credentials AS c FROM channel_providers WHERE organization_id = $1`,
      [s.org.id],
    );
    expect(JSON.parse(only.decrypt(provider.c))).toEqual(twilio);

    // Nothing is left to do.
    const again = (await runAdmin(['rotate-keys', '--org', s.org.id, '--json'])).rotation as {
      tables: { rotated: number }[];
    };
    expect(again.tables.every((t) => t.rotated === 0)).toBe(true);
  });
});
