// Shared set-up of the channel e2e tests: provider accounts pointed at the loopback fakes, and an
// organization that has spent its day's sending budget.
import { INestApplication } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { FcmFake } from '../../support/providers/fcm-fake';
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
