// The SMTP side of delivery runs in a worker thread (smtp-thread.js): a thread
// that dies mid-transaction leaves its message deferred, not lost, and a new thread delivers it;
// a worker shutting down lets the message on a connection finish and defers the rest.
import { INestApplication } from '@nestjs/common';
import { TestingModule } from '@nestjs/testing';
import { DataSource } from 'typeorm';
import { SmtpOutbound } from '@app/domain';
import type { Session } from '../support/session';
import type { SmtpSink } from './support/smtp-sink';
import {
  basicEmail,
  startDeliveryStack,
  startWorker,
  stopDeliveryStack,
  waitForMessage,
} from './support/sending';
import { waitFor } from '../support/wait-for';

/** A RCPT TO answer the test releases when it wants (the transaction stays open until then). */
function gate(): { wait: Promise<null>; open(): void } {
  let open!: () => void;
  const wait = new Promise<null>((resolve) => (open = () => resolve(null)));
  return { wait, open };
}

describe('Delivery through the SMTP thread', () => {
  let sink: SmtpSink;
  let app: INestApplication;
  let worker: TestingModule;
  let s: Session;

  beforeAll(async () => {
    // One pooled connection: a second message waits in the pool's queue behind the first.
    ({ sink, app, worker, s } = await startDeliveryStack({
      SMTP_OUTBOUND_POOL_SIZE: '1',
      DELIVERY_RETRY_BASE_MS: '300',
    }));
  });
  afterAll(() => stopDeliveryStack({ sink, app, worker }));
  beforeEach(() => {
    sink.onRcpt = undefined;
  });

  it('defers the message of a thread that dies mid-transaction; a new thread delivers it', async () => {
    const held = gate();
    sink.onRcpt = (address) => (address === 'crash@example.test' ? held.wait : null);
    const outbound = worker.get(SmtpOutbound);
    const res = await s.http
      .post('/api/v1/send', basicEmail({ to: 'crash@example.test' }))
      .expect(202);
    await waitFor(async () => sink.rcptSeen.includes('crash@example.test'), {
      what: 'the RCPT TO',
    });
    const crashed = outbound.smtpThread.threadId;
    expect(crashed).not.toBeNull();
    await outbound.smtpThread.terminate();
    sink.onRcpt = undefined;
    held.open();

    const log = await waitForMessage(s.http, res.body.data.jobId, (m) => m.status === 'delivered');
    expect(log.deliveryAttempts.map((a) => [a.status, a.smtpCode, a.retryCount])).toEqual([
      ['deferred', null, 0],
      ['delivered', 250, 1],
    ]);
    expect(log.deliveryAttempts[0]).toMatchObject({ mxHost: '127.0.0.1' });
    expect(log.deliveryAttempts[0].smtpMessage).toContain('ETHREAD');
    expect(outbound.smtpThread.threadId).not.toBeNull();
    expect(outbound.smtpThread.threadId).not.toBe(crashed);
  });

  it('on shutdown finishes the message on a connection and defers the queued one; both are delivered', async () => {
    const held = gate();
    sink.onRcpt = (address) => (address === 'inflight@example.test' ? held.wait : null);
    const before = sink.messages.length;
    const first = await s.http
      .post('/api/v1/send', basicEmail({ to: 'inflight@example.test' }))
      .expect(202);
    await waitFor(async () => sink.rcptSeen.includes('inflight@example.test'), {
      what: 'the RCPT TO',
    });
    const second = await s.http
      .post('/api/v1/send', basicEmail({ to: 'queued@example.test' }))
      .expect(202);
    // The second message is claimed and waits for the pool's one connection.
    await waitFor(
      async () => {
        const [row] = await app
          .get(DataSource)
          .query(`SELECT lease_until FROM messages WHERE job_id = $1`, [second.body.data.jobId]);
        return row?.lease_until;
      },
      { what: 'the second claim' },
    );

    const closing = worker.close();
    // Shutdown has reached the pool once the queued message is deferred; the other is still held.
    await waitForMessage(s.http, second.body.data.jobId, (m) => m.status === 'deferred');
    held.open();
    await closing;

    // The message on the connection went out before the worker ended, and its run is recorded.
    expect(sink.messages.slice(before).map((m) => m.to)).toEqual([['inflight@example.test']]);
    const done = await waitForMessage(
      s.http,
      first.body.data.jobId,
      (m) => m.status === 'delivered',
    );
    expect(done.deliveryAttempts.map((a) => a.status)).toEqual(['delivered']);
    const deferred = await waitForMessage(
      s.http,
      second.body.data.jobId,
      (m) => m.status === 'deferred',
    );
    // (Its retries while the worker is still closing are deferred the same way.)
    expect(deferred.deliveryAttempts[0]).toMatchObject({
      status: 'deferred',
      smtpCode: null,
      retryCount: 0,
    });

    // A worker started again delivers the deferred one.
    worker = await startWorker();
    const later = await waitForMessage(
      s.http,
      second.body.data.jobId,
      (m) => m.status === 'delivered',
    );
    const attempts = later.deliveryAttempts.map((a) => [a.status, a.smtpCode]);
    expect(attempts.at(-1)).toEqual(['delivered', 250]);
    for (const a of attempts.slice(0, -1)) expect(a).toEqual(['deferred', null]);
    expect(sink.messages.slice(before).map((m) => m.to)).toEqual([
      ['inflight@example.test'],
      ['queued@example.test'],
    ]);
  });
});
