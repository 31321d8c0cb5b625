// Private and internal targets refused at creation and at every attempt.
import { INestApplication } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { createSession, Session } from '../support/session';
import { createApiApp, createWorker, Receiver, testConfig } from './webhook-support';
import { holdsFor, waitFor } from '../support/wait-for';

const ENDPOINTS = '/api/v1/user/webhook-endpoints';
const DELIVERIES = '/api/v1/user/webhook-deliveries';

describe('Webhook private-target guard without WEBHOOK_ALLOW_PRIVATE_TARGETS (e2e)', () => {
  let api: INestApplication;
  let worker: INestApplication;
  let receiver: Receiver;
  let s: Session;
  let ds: DataSource;

  beforeAll(async () => {
    const config = testConfig('ssrf', {
      webhookAllowPrivateTargets: false,
      webhookScanIntervalMs: 50,
      webhookRetryBaseMs: 100,
    });
    expect(config.webhookAllowPrivateTargets).toBe(false);
    api = await createApiApp(config);
    worker = await createWorker(config);
    receiver = await new Receiver().start();
    ds = api.get(DataSource);
    s = await createSession(api, { plan: 'enterprise' });
  });
  afterAll(async () => {
    await worker.close();
    await api.close();
    await receiver.stop();
  });

  const privateTargets = () => [
    `http://127.0.0.1:${receiver.port}/hook`,
    'http://10.0.0.1/hook',
    `http://[::1]:${receiver.port}/hook`,
    'http://169.254.169.254/latest/meta-data',
    `http://localhost:${receiver.port}/hook`,
  ];

  describe('at creation', () => {
    it.each([
      'http://127.0.0.1',
      'http://10.0.0.1',
      'http://[::1]',
      'http://169.254.169.254',
      'http://localhost',
      'http://localhost.:8080/x',
      'http://api.localhost/x',
      'http://[::ffff:127.0.0.1]/',
      'http://[::ffff:a9fe:a9fe]/',
      'http://2130706433/',
      'http://0x7f.1/',
      'http://0.0.0.0/',
      'http://100.64.1.1/',
      'http://172.16.5.4/',
      'http://192.168.0.10/',
      'http://224.0.0.1/',
      'http://[fe80::1]/',
      'http://[fd00::1]/',
      'http://[ff02::1]/',
      'http://[::]/',
    ])('refuses %s with "Please enter a valid URL"', async (url) => {
      const res = await s.http.post(ENDPOINTS, { url, events: ['contact.created'] }).expect(422);
      expect(res.body.errors).toEqual([
        { field: 'url', rule: 'url', message: 'Please enter a valid URL' },
      ]);
    });

    it('refuses a private URL on update too, and accepts public addresses', async () => {
      const ok = await s.http
        .post(ENDPOINTS, { url: 'https://93.184.216.34/hook', events: ['contact.created'] })
        .expect(201);
      await s.http
        .patch(`${ENDPOINTS}/${ok.body.data.id}`, { url: 'http://10.1.2.3/' })
        .expect(422);
      await s.http
        .post(ENDPOINTS, { url: 'http://[2606:4700:4700::1111]/x', events: ['contact.created'] })
        .expect(201);
    });
  });

  describe('at delivery', () => {
    it('refuses every private target when the attempt is made, and nothing reaches the receiver', async () => {
      const ids: string[] = [];
      for (const target of privateTargets()) {
        // An endpoint created while private targets were allowed (or whose name changed since).
        const created = await s.http
          .post(ENDPOINTS, {
            url: 'https://93.184.216.34/hook',
            events: ['contact.created'],
            maxRetries: 1,
            timeoutSeconds: 2,
          })
          .expect(201);
        await ds.query(`UPDATE webhook_endpoints SET url = $1 WHERE id = $2`, [
          target,
          created.body.data.id,
        ]);
        const test = await s.http.post(`${ENDPOINTS}/${created.body.data.id}/test`).expect(201);
        ids.push(test.body.data.id);
      }
      const expected = [
        'Target address not allowed: 127.0.0.1 is a loopback address',
        'Target address not allowed: 10.0.0.1 is a private address',
        'Target address not allowed: ::1 is a loopback address',
        'Target address not allowed: 169.254.169.254 is a link-local address',
        /^Target address not allowed: (127\.0\.0\.1|::1) is a loopback address$/,
      ];
      for (const [i, id] of ids.entries()) {
        const d = await waitFor(async () => {
          const res = await s.http.get(`${DELIVERIES}/${id}`).expect(200);
          return res.body.data.status !== 'pending' ? res.body.data : undefined;
        });
        expect(d.status).toBe('failed');
        expect(d.attemptCount).toBe(1);
        expect(d.attempts).toHaveLength(1);
        expect(d.attempts[0].httpStatusCode).toBeNull();
        expect(d.attempts[0].errorMessage).toEqual(
          typeof expected[i] === 'string' ? expected[i] : expect.stringMatching(expected[i]),
        );
        expect(d.errorMessage).toBe(
          `Max retries exceeded. Last error: ${d.attempts[0].errorMessage}`,
        );
      }
      await holdsFor(() => expect(receiver.requests).toEqual([]));
    });
  });
});
