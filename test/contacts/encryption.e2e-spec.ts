// Encryption at rest (§5): no plaintext address, number, handle, Apple ID or device token in any
// table; after ENCRYPTION_KEY is rotated (the old key in ENCRYPTION_KEYS_OLD) every value reads
// back and exact-email search still works; rotate-keys re-encrypts everything under the new key.
import { INestApplication } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { DataSource } from 'typeorm';
import {
  configureFieldEncryption,
  FieldCipher,
  fieldCipher,
  KeyRotationSweeper,
  loadConfig,
} from '@app/domain';
import { createTestApp } from '../support/app';
import { client, createKey, createSession, Session } from '../support/session';
import { CONTACTS, createContact } from './contacts-support';

const SECRETS = {
  email: 'Very.Secret.Person@Example.com',
  nameless: 'nameless.person@example.net',
  sms: '+14155550142',
  whatsapp: '+447700900142',
  telegramPhone: '+4915100000142',
  telegramUser: 'secret_handle_42',
  appleId: 'secret.apple@icloud.example',
  imessagePhone: '+14155550143',
  deviceToken: 'secret-device-token-42',
};

/** Every string a plaintext could be recognised by (case-insensitive; numbers without "+"). */
const NEEDLES = Object.values(SECRETS).flatMap((v) => [v.toLowerCase(), v.replace(/^\+/, '')]);

async function tableDump(ds: DataSource): Promise<Map<string, string>> {
  const tables: { table_name: string }[] = await ds.query(
    `SELECT table_name FROM information_schema.tables
      WHERE table_schema = 'public' AND table_type = 'BASE TABLE'`,
  );
  const out = new Map<string, string>();
  for (const { table_name } of tables) {
    const [{ dump }] = await ds.query(
      `SELECT coalesce(string_agg(t::text, E'\\n'), '') AS dump FROM "${table_name}" t`,
    );
    out.set(table_name, String(dump).toLowerCase());
  }
  return out;
}

async function expectNoPlaintext(ds: DataSource) {
  const dump = await tableDump(ds);
  expect(dump.has('contact_emails')).toBe(true);
  for (const [table, text] of dump) {
    for (const needle of NEEDLES) {
      if (text.includes(needle)) throw new Error(`plaintext "${needle}" found in table ${table}`);
    }
  }
}

describe('Contacts encryption at rest', () => {
  const oldKey = process.env.ENCRYPTION_KEY!;
  const newKey = randomBytes(32).toString('base64');
  const savedOld = process.env.ENCRYPTION_KEYS_OLD;
  let app: INestApplication;
  let s: Session;
  let contactId: string;
  let namelessId: string;

  beforeAll(async () => {
    app = await createTestApp();
    s = await createSession(app);
  });
  afterAll(async () => {
    process.env.ENCRYPTION_KEY = oldKey;
    if (savedOld === undefined) delete process.env.ENCRYPTION_KEYS_OLD;
    else process.env.ENCRYPTION_KEYS_OLD = savedOld;
    configureFieldEncryption(new FieldCipher(Buffer.from(oldKey, 'base64')));
    await app.close();
  });

  const readBack = async (http: Session['http']) => {
    const c = (await http.get(`${CONTACTS}/${contactId}`).expect(200)).body.data;
    expect(c.emails[0].email).toBe(SECRETS.email);
    expect(c.smsNumbers[0].phoneNumber).toBe(SECRETS.sms);
    expect(c.whatsappAccounts[0].phoneNumber).toBe(SECRETS.whatsapp);
    expect(c.telegramAccounts[0]).toMatchObject({
      phoneNumber: SECRETS.telegramPhone,
      username: SECRETS.telegramUser,
    });
    expect(c.imessageAccounts[0]).toMatchObject({
      appleId: SECRETS.appleId,
      phoneNumber: SECRETS.imessagePhone,
    });
    expect(c.pushNotifications[0].deviceToken).toBe(SECRETS.deviceToken);
    const n = (await http.get(`${CONTACTS}/${namelessId}`).expect(200)).body.data;
    expect(n.displayName).toBe(SECRETS.nameless);
    expect(n.emails[0].email).toBe(SECRETS.nameless);
  };
  const searchIds = async (http: Session['http'], q: string) =>
    (await http.get(`${CONTACTS}?search=${encodeURIComponent(q)}`).expect(200)).body.data.map(
      (c: { id: string }) => c.id,
    );

  it('stores no plaintext email, phone number, Telegram username, Apple ID or device token', async () => {
    contactId = (
      await createContact(s, {
        firstName: 'Secret',
        emails: [{ email: SECRETS.email }],
        smsNumbers: [{ phoneNumber: SECRETS.sms }],
        whatsappAccounts: [{ phoneNumber: SECRETS.whatsapp }],
        telegramAccounts: [{ phoneNumber: SECRETS.telegramPhone, username: SECRETS.telegramUser }],
        imessageAccounts: [{ appleId: SECRETS.appleId, phoneNumber: SECRETS.imessagePhone }],
        pushNotifications: [{ deviceToken: SECRETS.deviceToken, platform: 'ios' }],
      })
    ).id;
    // No name: displayName is derived from the address, and must not leak it either.
    namelessId = (await createContact(s, { emails: [{ email: SECRETS.nameless }] })).id;
    const ds = app.get(DataSource);
    await expectNoPlaintext(ds);
    const keyId = fieldCipher().currentKeyId;
    const [row] = await ds.query(
      `SELECT email, email_hash FROM contact_emails WHERE contact_id = $1`,
      [contactId],
    );
    expect(row.email).toMatch(new RegExp(`^v1:${keyId}:[A-Za-z0-9+/]+=*$`));
    expect(row.email_hash).toMatch(/^[0-9a-f]{64}$/);
    // Two encryptions of one value differ (random nonce).
    expect(fieldCipher().encrypt('x')).not.toBe(fieldCipher().encrypt('x'));
    await readBack(s.http);
    expect(await searchIds(s.http, SECRETS.email.toUpperCase())).toEqual([contactId]);
    expect(await searchIds(s.http, SECRETS.sms)).toEqual([contactId]);
  });

  it('reads every value back and finds by exact email after ENCRYPTION_KEY is rotated, then rotate-keys moves everything to the new key', async () => {
    const ds0 = app.get(DataSource);
    const oldKeyId = fieldCipher().currentKeyId;
    await app.close();

    // The operator's rotation: new ENCRYPTION_KEY, the previous one in ENCRYPTION_KEYS_OLD.
    process.env.ENCRYPTION_KEY = newKey;
    process.env.ENCRYPTION_KEYS_OLD = oldKey;
    expect(loadConfig().encryptionKeysOld).toHaveLength(1);
    app = await createTestApp();
    expect(fieldCipher().currentKeyId).not.toBe(oldKeyId);
    const { value } = await createKey(app, s.org.id);
    const http = client(app, { 'X-API-Key': value });
    expect(ds0.isInitialized).toBe(false);
    const ds = app.get(DataSource);

    await readBack(http);
    expect(await searchIds(http, SECRETS.email)).toEqual([contactId]);
    expect(await searchIds(http, SECRETS.nameless)).toEqual([namelessId]);
    expect(await searchIds(http, SECRETS.whatsapp)).toEqual([contactId]);
    // Uniqueness holds across keys: the old-key address is still taken.
    await http.post(CONTACTS, { emails: [{ email: SECRETS.email.toLowerCase() }] }).expect(409);
    // New writes use the new key.
    const fresh = (
      await http.post(CONTACTS, { emails: [{ email: 'after.rotation@example.com' }] }).expect(201)
    ).body.data;
    const [freshRow] = await ds.query(`SELECT email FROM contact_emails WHERE contact_id = $1`, [
      fresh.id,
    ]);
    expect(freshRow.email.startsWith(`v1:${fieldCipher().currentKeyId}:`)).toBe(true);

    // rotate-keys: re-encrypt and re-index everything still under the old key.
    // Scoped to this file's organization: the run's database is shared with other test files.
    const result = await app
      .get(KeyRotationSweeper)
      .rotate({ batchSize: 2, organizationId: s.org.id });
    const rotated = Object.fromEntries(result.tables.map((t) => [t.table, t.rotated]));
    expect(rotated.contact_emails).toBeGreaterThanOrEqual(2);
    expect(rotated.contacts).toBeGreaterThanOrEqual(1);
    for (const t of [
      'contact_sms',
      'contact_whatsapp',
      'contact_telegram',
      'contact_imessage',
      'contact_push',
    ]) {
      expect(rotated[t]).toBeGreaterThanOrEqual(1);
    }
    const stale: { n: number }[] = await ds.query(
      `SELECT count(*)::int AS n FROM contact_emails WHERE email LIKE $1 AND organization_id = $2`,
      [`v1:${oldKeyId}:%`, s.org.id],
    );
    expect(stale[0].n).toBe(0);
    await expectNoPlaintext(ds);
    // Running it again finds nothing to do.
    const again = await app.get(KeyRotationSweeper).rotate({ organizationId: s.org.id });
    expect(again.tables.every((t) => t.rotated === 0)).toBe(true);

    // The old key is no longer needed: everything reads and searches with the new key alone.
    configureFieldEncryption(new FieldCipher(Buffer.from(newKey, 'base64')));
    await readBack(http);
    expect(await searchIds(http, SECRETS.email)).toEqual([contactId]);
    expect(await searchIds(http, SECRETS.sms)).toEqual([contactId]);
    expect(await searchIds(http, SECRETS.nameless)).toEqual([namelessId]);
  });
});
