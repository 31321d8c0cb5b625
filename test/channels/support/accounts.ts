// Shared set-up of the channel e2e tests: provider accounts pointed at the loopback fakes, and an
// organization that has spent its day's sending budget.
import { INestApplication } from '@nestjs/common';
import { getQueueToken } from '@nestjs/bull';
import { TestingModule } from '@nestjs/testing';
import type { Queue } from 'bull';
import { DataSource } from 'typeorm';
import { QUEUES, setLogSink } from '@app/domain';
import { freePort } from '../../selfhost/support';
import { sendingEnv, startWorker } from '../../sending/support/sending';
import { createTestApp } from '../../support/app';
import { BlooioFake } from '../../support/providers/blooio-fake';
import { FcmFake } from '../../support/providers/fcm-fake';
import { WhatsappFake } from '../../support/providers/whatsapp-fake';
import { TelegramFake } from '../../support/providers/telegram-fake';
import { TwilioFake } from '../../support/providers/twilio-fake';
import { createSession, Session } from '../../support/session';

export const twilioAccount = (twilio: TwilioFake, from: string) => ({
  channel: 'sms',
  provider: 'twilio',
  name: 'Twilio',
  credentials: { accountSid: twilio.accountSid, authToken: twilio.authToken },
  settings: { from, apiBaseUrl: twilio.baseUrl },
});

export const fcmAccount = (fcm: FcmFake) => ({
  channel: 'push',
  provider: 'fcm',
  name: 'FCM',
  credentials: { serviceAccount: fcm.serviceAccount },
  settings: { apiBaseUrl: fcm.url },
});

export const whatsappAccount = (wa: WhatsappFake, verifyToken: string) => ({
  channel: 'whatsapp',
  provider: 'whatsapp-cloud',
  name: 'WhatsApp',
  credentials: { accessToken: wa.accessToken, appSecret: wa.appSecret },
  settings: { phoneNumberId: wa.phoneNumberId, verifyToken, apiBaseUrl: wa.baseUrl },
});

export const blooioAccount = (blooio: BlooioFake) => ({
  channel: 'imessage',
  provider: 'blooio',
  name: 'Blooio',
  credentials: { apiKey: blooio.apiKey, signingSecret: blooio.signingSecret },
  settings: { fromNumber: blooio.fromNumber, apiBaseUrl: blooio.baseUrl },
});

/** A contact created through the API with the channel records of `body`; answers its id. */
export async function createContact(s: Session, body: object): Promise<string> {
  const res = await s.http.post('/api/v1/user/contacts', body).expect(201);
  return res.body.data.id as string;
}

/** The contact as the API shows it, its channel records included. */
export async function contactOf(s: Session, id: string): Promise<Record<string, unknown[]>> {
  const res = await s.http.get(`/api/v1/user/contacts/${id}`).expect(200);
  return res.body.data as Record<string, unknown[]>;
}

export const telegramAccount = (telegram: TelegramFake, botToken = telegram.botToken) => ({
  channel: 'telegram',
  provider: 'telegram-bot',
  name: 'Telegram',
  credentials: { botToken },
  settings: { botUsername: telegram.botUsername, apiBaseUrl: telegram.baseUrl },
});

/** Connects the account for the session's organization; answers its id. */
export async function connect(s: Session, account: object): Promise<string> {
  const res = await s.http.post('/api/v1/user/channel-providers', account).expect(201);
  return res.body.data.id as string;
}

/**
 * A new organization with `account` connected whose day allows one recipient, spent on an email:
 * any further send, on any channel, is over its limit.
 */
export async function spentForTheDay(app: INestApplication, account: object): Promise<Session> {
  const s = await createSession(app, { plan: 'pro' });
  await app
    .get(DataSource)
    .query(`UPDATE organizations SET limit_per_day = 1 WHERE id = $1`, [s.org.id]);
  await connect(s, account);
  await s.http
    .post('/api/v1/send', { from: 'a@sender.test', to: 'b@example.test', subject: 'S', text: 'T' })
    .expect(202);
  return s;
}

/** The api listening on PUBLIC_BASE_URL and the worker, with what they log and queue recorded. */
export interface ChannelStack {
  app: INestApplication;
  worker: TestingModule;
  /** PUBLIC_BASE_URL: where providers post their callbacks. */
  base: string;
  /** Every log line of the api and the worker, at debug level. */
  lines: string[];
  /** Every job the api and the worker put on the delivery queue. */
  payloads: string[];
  stop(): Promise<void>;
}

/** Starts the stack of a channel e2e file (DELIVERY_RETRY_BASE_MS 300, private targets allowed). */
export async function startChannelStack(): Promise<ChannelStack> {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  sendingEnv({
    PUBLIC_BASE_URL: base,
    WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
    DELIVERY_RETRY_BASE_MS: '300',
  });
  const lines: string[] = [];
  const payloads: string[] = [];
  setLogSink((line) => lines.push(line));
  process.env.LOG_LEVEL = 'debug';
  const app = await createTestApp({ logLevel: 'debug' });
  await app.listen(port, '127.0.0.1');
  const worker = await startWorker();
  process.env.LOG_LEVEL = 'error';
  for (const queue of [app, worker].map((m) => m.get<Queue>(getQueueToken(QUEUES.email)))) {
    const add = queue.add.bind(queue) as (...args: unknown[]) => unknown;
    const addBulk = queue.addBulk.bind(queue);
    queue.add = ((...args: unknown[]) => {
      payloads.push(JSON.stringify(args));
      return add(...args);
    }) as Queue['add'];
    queue.addBulk = (jobs) => {
      payloads.push(JSON.stringify(jobs));
      return addBulk(jobs);
    };
  }
  return {
    app,
    worker,
    base,
    lines,
    payloads,
    async stop() {
      await worker.close();
      await app.close();
      setLogSink((line) => process.stdout.write(line + '\n'));
    },
  };
}
