// The platform of the unsubscribe and inbound e2e tests, all real: an SMTP sink the worker delivers
// to, the api listening on a loopback port (the List-Unsubscribe URLs point at it), the worker,
// the relay with its inbound port, and an HTTP receiver for webhooks.
import { INestApplication } from '@nestjs/common';
import { Test, TestingModule } from '@nestjs/testing';
import type { ParsedMail } from 'mailparser';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import nodemailer from 'nodemailer';
import { DataSource } from 'typeorm';
import { fieldCipher, JsonLogger, normaliseEmail } from '@app/domain';
import { InboundSmtpService } from '../../../apps/smtp-relay/src/inbound/inbound-smtp.service';
import { SmtpRelayModule } from '../../../apps/smtp-relay/src/smtp-relay.module';
import { createTestApp } from '../../support/app';
import { createSession, Session } from '../../support/session';
import { sendingEnv, startWorker } from '../../sending/support/sending';
import { waitFor } from '../../support/wait-for';
import { startSmtpSink, SmtpSink } from '../../sending/support/smtp-sink';
import { Receiver } from '../../webhooks/webhook-support';

export const BOUNCE_DOMAIN = 'bounces.test';

export interface Stack {
  sink: SmtpSink;
  app: INestApplication;
  ds: DataSource;
  worker: TestingModule | null;
  relay: TestingModule;
  receiver: Receiver;
  /** http://127.0.0.1:<port> of the api. */
  baseUrl: string;
  inboundPort: number;
  /** A pro organization with a webhook endpoint on the receiver. */
  s: Session;
  endpointId: string;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((done) => server.close(() => done()));
  return port;
}

export const WEBHOOK_EVENTS = [
  'contact.unsubscribed',
  'email.bounced',
  'email.deferred',
  'email.complained',
];

export async function startStack(vars: Record<string, string> = {}): Promise<Stack> {
  const sink = await startSmtpSink();
  const receiver = await new Receiver().start();
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  sendingEnv({
    SMTP_OUTBOUND_URL: sink.url,
    PUBLIC_BASE_URL: baseUrl,
    BOUNCE_DOMAIN,
    SMTP_PORT: '0',
    INBOUND_SMTP_PORT: '0',
    INBOUND_POLL_INTERVAL_MS: '300',
    CAMPAIGN_POLL_INTERVAL_MS: '200',
    WEBHOOK_SCAN_INTERVAL_MS: '200',
    ...vars,
  });
  const app = await createTestApp();
  await app.listen(port, '127.0.0.1');
  const ds = app.get(DataSource);
  // Other files' undelivered messages (their sinks are gone) must not queue ahead of this file's.
  await ds.query(`UPDATE messages SET next_attempt_at = NULL WHERE next_attempt_at IS NOT NULL`);
  const relay = await Test.createTestingModule({ imports: [SmtpRelayModule] }).compile();
  relay.useLogger(new JsonLogger('relay-test', 'warn'));
  await relay.init();
  const worker = await startWorker();
  const s = await createSession(app, { plan: 'pro' });
  const endpoint = await s.http
    .post('/api/v1/user/webhook-endpoints', { url: receiver.url, events: WEBHOOK_EVENTS })
    .expect(201);
  return {
    sink,
    app,
    ds,
    worker,
    relay,
    receiver,
    baseUrl,
    inboundPort: relay.get(InboundSmtpService).port,
    s,
    endpointId: endpoint.body.data.id,
  };
}

export async function stopStack(stack: Stack): Promise<void> {
  await stack.worker?.close();
  await stack.relay.close();
  await stack.app.close();
  await stack.sink.close();
  await stack.receiver.stop();
}

/** The webhook events the receiver got of `type`, parsed, optionally only those matching. */
export function received(
  stack: Stack,
  type: string,
  match: (data: Record<string, unknown>) => boolean = () => true,
): Record<string, unknown>[] {
  return stack.receiver.requests
    .map((r) => JSON.parse(r.body) as { type: string; data: Record<string, unknown> })
    .filter((e) => e.type === type && match(e.data))
    .map((e) => e.data);
}

export function waitForEvent(
  stack: Stack,
  type: string,
  match: (data: Record<string, unknown>) => boolean,
): Promise<Record<string, unknown>> {
  return waitFor(async () => received(stack, type, match)[0], {
    what: `webhook ${type}`,
    timeoutMs: 20_000,
  });
}

/** A list of the organization, written with SQL (the contacts API is another area's). */
export async function createList(stack: Stack, organizationId: string, name: string) {
  const [row]: { id: string }[] = await stack.ds.query(
    `INSERT INTO contact_lists (organization_id, cuid, name, status, preferred_channels, is_default)
     VALUES ($1, substr(md5(random()::text), 1, 24), $2, 'active', '{email}', false) RETURNING id`,
    [organizationId, name],
  );
  return row.id;
}

/** A contact with one primary email, subscribed to `listIds`. */
export async function createContact(
  stack: Stack,
  organizationId: string,
  email: string,
  listIds: string[],
): Promise<string> {
  const cipher = fieldCipher();
  const [c]: { id: string }[] = await stack.ds.query(
    `INSERT INTO contacts (organization_id, first_name, status) VALUES ($1, 'Ann', 'active') RETURNING id`,
    [organizationId],
  );
  await stack.ds.query(
    `INSERT INTO contact_emails (organization_id, contact_id, email, email_hash, status, is_primary)
     VALUES ($1, $2, $3, $4, 'verified', true)`,
    [organizationId, c.id, cipher.encrypt(email), cipher.blindIndex(normaliseEmail(email))],
  );
  for (const listId of listIds) {
    await stack.ds.query(
      `INSERT INTO contact_list_memberships (organization_id, contact_id, contact_list_id, status)
       VALUES ($1, $2, $3, 'subscribed')`,
      [organizationId, c.id, listId],
    );
    await stack.ds.query(
      `UPDATE contact_lists SET subscriber_count = subscriber_count + 1 WHERE id = $1`,
      [listId],
    );
  }
  return c.id;
}

export interface MembershipRow {
  contact_list_id: string;
  status: string;
  unsubscribe_reason: string | null;
  unsubscribed_at: Date | null;
}

export function memberships(stack: Stack, contactId: string): Promise<MembershipRow[]> {
  return stack.ds.query(
    `SELECT contact_list_id, status, unsubscribe_reason, unsubscribed_at
       FROM contact_list_memberships WHERE contact_id = $1 ORDER BY contact_list_id`,
    [contactId],
  );
}

export async function emailState(stack: Stack, organizationId: string, email: string) {
  const [row]: {
    status: string;
    bounce_count: number;
    complaint_count: number;
  }[] = await stack.ds.query(
    `SELECT status, bounce_count, complaint_count FROM contact_emails
      WHERE organization_id = $1 AND email_hash = $2`,
    [organizationId, fieldCipher().blindIndex(normaliseEmail(email))],
  );
  return row;
}

/** Sends raw mail to the inbound port as another mail server would: no AUTH, null sender. */
export function sendInbound(stack: Stack, to: string, raw: Buffer): Promise<string> {
  return sendInboundTo(stack, [to], raw);
}

/** sendInbound to several addresses in one transaction (one DATA). */
export async function sendInboundTo(stack: Stack, to: string[], raw: Buffer): Promise<string> {
  const transport = nodemailer.createTransport({
    host: '127.0.0.1',
    port: stack.inboundPort,
    secure: false,
    ignoreTLS: true,
  });
  try {
    const info = await transport.sendMail({ envelope: { from: '', to }, raw });
    return info.response;
  } finally {
    transport.close();
  }
}

/** The inbound rows stored for one recipient address, newest first. */
export function inboundRows(
  stack: Stack,
  recipient: string,
): Promise<{ status: string; outcome: string | null; organization_id: string | null }[]> {
  return stack.ds.query(
    `SELECT status, outcome, organization_id FROM inbound_messages
      WHERE $1 = ANY(recipients) ORDER BY received_at DESC`,
    [recipient],
  );
}

/** A header of a delivered message as mailparser read it, unfolded (null when absent). */
export function header(parsed: ParsedMail, name: string): string | null {
  const line = parsed.headerLines.find((h) => h.key === name.toLowerCase())?.line;
  return line
    ? line
        .slice(line.indexOf(':') + 1)
        .replace(/\r?\n[ \t]+/g, ' ')
        .trim()
    : null;
}
