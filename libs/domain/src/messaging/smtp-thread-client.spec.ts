// The SMTP thread's failures answered as outcomes: refused, uncopyable, dead thread, closed.
import { Logger } from '@nestjs/common';
import { createServer, Server } from 'node:net';
import type { AddressInfo } from 'node:net';
import { SmtpThread } from './smtp-thread-client';
import { SMTP_TIMEOUTS, SmtpMail } from './smtp-thread.types';

const config = { poolSize: 1, opportunisticTls: false, timeouts: SMTP_TIMEOUTS };
const envelope = { from: 'a@sender.test', to: ['b@example.test'] };
const mail = {
  raw: Buffer.from('From: a@sender.test\r\nTo: b@example.test\r\nSubject: s\r\n\r\nt\r\n'),
};

/** A TCP port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  await new Promise((r) => server.close(r));
  return port;
}

describe(SmtpThread.name, () => {
  let thread: SmtpThread;
  let silent: Server;

  beforeAll(() => Logger.overrideLogger(false));
  beforeEach(() => {
    thread = new SmtpThread(config);
  });
  afterEach(async () => {
    await thread.terminate();
    silent?.close();
  });

  it('answers a refused connection as a failure without an SMTP code', async () => {
    const target = { host: '127.0.0.1', port: await closedPort(), secure: false, smarthost: true };
    const outcome = await thread.send(target, mail, envelope);
    expect(outcome.info).toBeUndefined();
    expect(outcome.err).toMatchObject({ code: 'ESOCKET' });
    expect(outcome.err?.responseCode).toBeUndefined();
  });

  it('answers content the thread cannot be given as a failure, and keeps working', async () => {
    const target = { host: '127.0.0.1', port: await closedPort(), secure: false, smarthost: true };
    const unclonable = { ...mail, fn: () => 'x' } as unknown as SmtpMail;
    expect((await thread.send(target, unclonable, envelope)).err).toMatchObject({
      code: 'EMESSAGE',
    });
    expect((await thread.send(target, mail, envelope)).err).toMatchObject({ code: 'ESOCKET' });
  });

  it('answers the sends of a thread that dies, and starts a new one for the next', async () => {
    // A server that accepts and never greets: the send stays pending in the thread.
    silent = createServer(() => undefined);
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    const target = {
      host: '127.0.0.1',
      port: (silent.address() as AddressInfo).port,
      secure: false,
      smarthost: true,
    };
    const pending = thread.send(target, mail, envelope);
    const first = thread.threadId;
    await thread.terminate();
    expect((await pending).err).toMatchObject({ code: 'ETHREAD' });
    const closed = { ...target, port: await closedPort() };
    expect((await thread.send(closed, mail, envelope)).err).toMatchObject({ code: 'ESOCKET' });
    expect(thread.threadId).not.toBe(first);
  });

  it('refuses sends once closed, and ends its thread', async () => {
    const target = { host: '127.0.0.1', port: await closedPort(), secure: false, smarthost: true };
    await thread.send(target, mail, envelope);
    await thread.close();
    expect(thread.threadId).toBeNull();
    expect((await thread.send(target, mail, envelope)).err).toMatchObject({ code: 'ESHUTDOWN' });
  });
});
