// The stack of the signing tests: a loopback DNS server, an SMTP sink as the smarthost, the relay,
// the api and a worker, under one sender policy; closed in reverse order.
import { INestApplication } from '@nestjs/common';
import { Test, TestingModule } from '@nestjs/testing';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { JsonLogger } from '@app/domain';
import { SmtpRelayModule } from '../../apps/smtp-relay/src/smtp-relay.module';
import { SmtpRelayService } from '../../apps/smtp-relay/src/smtp-relay.service';
import { sendingEnv, startWorker } from '../sending/support/sending';
import { SmtpSink, startSmtpSink } from '../sending/support/smtp-sink';
import { createTestApp } from '../support/app';
import { startDnsServer, TestDnsServer } from '../support/dns-server';
import { BOUNCE_DOMAIN } from './support';

export interface SigningStack {
  dns: TestDnsServer;
  sink: SmtpSink;
  relay: TestingModule;
  app: INestApplication;
  worker: TestingModule;
  /** The port the relay listens on. */
  relayPort(): number;
  close(): Promise<void>;
}

export async function startSigningStack(opts: {
  policy: 'require' | 'allow';
  /** Prefix of the stack's DATA_DIR. */
  name: string;
  env?: Record<string, string>;
  /** Runs after the api is up and before the worker starts. */
  beforeWorker?: (app: INestApplication) => Promise<void>;
}): Promise<SigningStack> {
  const dns = await startDnsServer();
  const sink = await startSmtpSink();
  sendingEnv({
    SMTP_OUTBOUND_URL: sink.url,
    SMTP_PORT: '0',
    DATA_DIR: mkdtempSync(join(tmpdir(), `mp-${opts.name}-`)),
    DNS_SERVERS: dns.address,
    BOUNCE_DOMAIN,
    SENDING_DOMAIN_POLICY: opts.policy,
    ...opts.env,
  });
  const relay = await Test.createTestingModule({ imports: [SmtpRelayModule] }).compile();
  relay.useLogger(new JsonLogger('relay-test', 'error'));
  await relay.init();
  const app = await createTestApp();
  await opts.beforeWorker?.(app);
  const worker = await startWorker();
  return {
    dns,
    sink,
    relay,
    app,
    worker,
    relayPort: () => relay.get(SmtpRelayService).port,
    close: async () => {
      await worker.close();
      await relay.close();
      await app.close();
      await sink.close();
      await dns.stop();
      delete process.env.SENDING_DOMAIN_POLICY;
    },
  };
}
