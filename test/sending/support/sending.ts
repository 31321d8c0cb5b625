// Shared set-up of the sending e2e tests: the file's environment, the worker in-process,
// contact rows written with SQL, and polling helpers.
import { INestApplication } from '@nestjs/common';
import { Test, TestingModule, TestingModuleBuilder } from '@nestjs/testing';
import { DataSource } from 'typeorm';
import { fieldCipher, normaliseEmail } from '@app/domain';
import { WorkerModule } from '../../../apps/worker/src/worker.module';
import { createTestApp, testLogger } from '../../support/app';
import { createSession, Session } from '../../support/session';
import type { Client } from '../../support/session';
import { waitFor } from '../../support/wait-for';
import { startSmtpSink, SmtpSink } from './smtp-sink';

/** Environment of one test file; call before creating the apps (config is read at compile). */
export function sendingEnv(vars: Record<string, string | undefined> = {}): void {
  // Loopback is exempt from the per-IP send limits, so files sharing 127.0.0.1 never trip them;
  // the per-IP tests use other client addresses (X-Forwarded-For with TRUST_PROXY).
  process.env.SEND_IP_ALLOWLIST = '127.0.0.1,::1';
  for (const [k, v] of Object.entries(vars)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
}

/** A file's delivery set-up: its SMTP sink, the api, the worker and a pro organization. */
export interface DeliveryStack {
  sink: SmtpSink;
  app: INestApplication;
  worker: TestingModule;
  s: Session;
}

/**
 * Starts a sink, the api and the worker delivering to the sink (`SMTP_OUTBOUND_URL`) with `vars`
 * as the rest of the file's environment.
 */
export async function startDeliveryStack(
  vars: Record<string, string | undefined> = {},
): Promise<DeliveryStack> {
  const sink = await startSmtpSink();
  sendingEnv({ SMTP_OUTBOUND_URL: sink.url, ...vars });
  const app = await createTestApp();
  const worker = await startWorker();
  const s = await createSession(app, { plan: 'pro' });
  return { sink, app, worker, s };
}

export async function stopDeliveryStack(stack: Omit<DeliveryStack, 's'>): Promise<void> {
  await stack.worker.close();
  await stack.app.close();
  await stack.sink.close();
}

/** The worker application (Bull processors, timers) in this process. */
export async function startWorker(
  override?: (b: TestingModuleBuilder) => TestingModuleBuilder,
): Promise<TestingModule> {
  let builder = Test.createTestingModule({ imports: [WorkerModule] });
  if (override) builder = override(builder);
  const worker = await builder.compile();
  worker.useLogger(testLogger('worker-test'));
  await worker.init();
  return worker;
}

export interface MessageBody {
  jobId: string;
  status: string;
  recipients: string[];
  deliveryAttempts: {
    recipient: string;
    status: string;
    smtpCode: number | null;
    smtpMessage: string | null;
    mxHost: string | null;
    outboundIp: string | null;
    retryCount: number;
    attemptedAt: string;
  }[];
  engagementEvents: {
    type: string;
    recipient: string;
    userAgent: string | null;
    remoteIp: string | null;
    occurredAt: string;
  }[];
  [k: string]: unknown;
}

/** Polls GET /messages/{jobId} until `done` holds for the message. */
export function waitForMessage(
  http: Client,
  jobId: string,
  done: (m: MessageBody) => boolean,
  timeoutMs = 15_000,
): Promise<MessageBody> {
  return waitFor(
    async () => {
      const res = await http.get(`/api/v1/user/messages/${jobId}`);
      return res.status === 200 && done(res.body.data) ? (res.body.data as MessageBody) : null;
    },
    { what: `message ${jobId}`, timeoutMs },
  );
}

/** A contact with one email address, written with SQL (the contacts API is another area's). */
export async function insertContactEmail(
  app: INestApplication,
  organizationId: string,
  email: string,
  status = 'verified',
): Promise<{ contactId: string }> {
  const ds = app.get(DataSource);
  const [contact]: { id: string }[] = await ds.query(
    `INSERT INTO contacts (organization_id, display_name, status) VALUES ($1, $2, 'active') RETURNING id`,
    [organizationId, email],
  );
  await ds.query(
    `INSERT INTO contact_emails (organization_id, contact_id, email, email_hash, status, is_primary)
     VALUES ($1, $2, $3, $4, $5, true)`,
    [
      organizationId,
      contact.id,
      fieldCipher().encrypt(email),
      fieldCipher().blindIndex(normaliseEmail(email)),
      status,
    ],
  );
  return { contactId: contact.id };
}

export async function contactEmailState(
  app: INestApplication,
  organizationId: string,
  email: string,
): Promise<{ status: string; bounce_count: number; last_bounced_at: Date | null }> {
  const [row] = await app.get(DataSource).query(
    `SELECT status, bounce_count, last_bounced_at FROM contact_emails
        WHERE organization_id = $1 AND email_hash = $2`,
    [organizationId, fieldCipher().blindIndex(normaliseEmail(email))],
  );
  return row;
}

export function basicEmail(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    from: 'Sender <sender@sender.test>',
    to: 'someone@example.test',
    subject: 'Hello',
    text: 'Hello there',
    ...overrides,
  };
}
