// Messages composed and signed in the build threads: the bytes an SMTP transport would send, a
// DKIM signature that verifies, and failures answered as outcomes.
import { Logger } from '@nestjs/common';
import { authenticate } from 'mailauth';
import { generateKeyPairSync, KeyObject } from 'node:crypto';
import nodemailer, { SendMailOptions } from 'nodemailer';
import { MailBuildThreads } from './mail-build-threads';

const mail = {
  from: 'Sender <a@sender.test>',
  to: 'b@example.test',
  subject: 'Hello',
  text: 'Plain body',
  html: '<p>HTML body</p>',
  messageId: '<fixed@sender.test>',
  date: new Date('2026-01-02T03:04:05Z'),
};

/** The message as nodemailer composes it on the calling thread. */
async function composedHere(options: SendMailOptions): Promise<string> {
  const t = nodemailer.createTransport({ streamTransport: true, buffer: true });
  return ((await t.sendMail(options)).message as Buffer).toString();
}

/** mailauth's DKIM verdict on the message, the selector's key published by a stub resolver. */
async function dkimResult(raw: string, publicKey: KeyObject): Promise<string | undefined> {
  const p = publicKey.export({ type: 'spki', format: 'der' }).toString('base64');
  const resolver = async (name: string, type: string) => {
    if (type === 'TXT' && name === 'mp1._domainkey.sender.test')
      return [[`v=DKIM1; k=rsa; p=${p}`]];
    throw Object.assign(new Error(`no ${type} record for ${name}`), { code: 'ENOTFOUND' });
  };
  const { dkim } = await authenticate(raw, { resolver, trustReceived: false, disableArc: true });
  return dkim.results[0]?.status.result;
}

describe(MailBuildThreads.name, () => {
  let threads: MailBuildThreads;

  beforeAll(() => Logger.overrideLogger(false));
  beforeEach(() => {
    threads = new MailBuildThreads(2);
  });
  afterEach(() => threads.close());

  it('builds the bytes nodemailer composes on the calling thread', async () => {
    const built = await threads.build(mail);
    expect(built.err).toBeUndefined();
    expect(Buffer.isBuffer(built.raw)).toBe(true);
    const here = await composedHere(mail);
    // The MIME boundaries are random; everything else is the same.
    const unbound = (s: string) => s.replace(/--_NmP-[0-9a-f-]+-Part_\d+/g, 'BOUNDARY');
    expect(unbound(built.raw!.toString())).toBe(unbound(here));
  });

  it('signs with the DKIM key it is given, a signature that verifies', async () => {
    const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const built = await threads.build({
      ...mail,
      dkim: { domainName: 'sender.test', keySelector: 'mp1', privateKey: privateKey as never },
    });
    const raw = built.raw!.toString();
    expect(raw).toMatch(/^DKIM-Signature: v=1; a=rsa-sha256; c=relaxed\/relaxed; d=sender.test;/);
    expect(raw).toMatch(/s=mp1;/);
    expect(await dkimResult(raw, publicKey)).toBe('pass');
  });

  it('answers a message nodemailer cannot build as a failure, and keeps working', async () => {
    const broken = await threads.build({
      ...mail,
      attachments: [{ filename: 'x.txt', path: '/etc/hostname' }],
    });
    expect(broken.err?.message).toMatch(/file access/i);
    expect((await threads.build(mail)).raw).toBeDefined();
  });

  it('answers content a thread cannot be given, and once closed refuses', async () => {
    const unclonable = { ...mail, headers: { 'X-Fn': (() => 'x') as unknown as string } };
    expect((await threads.build(unclonable)).err).toMatchObject({ code: 'EMESSAGE' });
    await threads.close();
    expect((await threads.build(mail)).err).toMatchObject({ code: 'ESHUTDOWN' });
  });
});
