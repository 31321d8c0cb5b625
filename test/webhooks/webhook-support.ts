// Helpers of the webhook e2e tests: a real node:http receiver on loopback and in-process workers.
import { INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { APP_CONFIG, AppConfig, Clock, Events, EventType, loadConfig, OrgId } from '@app/domain';
import { createServer, IncomingHttpHeaders, Server, ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { DataSource } from 'typeorm';
import { WorkerModule } from '../../apps/worker/src/worker.module';
import { createTestApp, testLogger } from '../support/app';

export interface Received {
  headers: IncomingHttpHeaders;
  rawHeaders: string[];
  body: string;
  at: number;
}

/** What the receiver does with a request: answer with a status, never answer, or drop the socket. */
export type Behaviour = { status: number; body?: string; delayMs?: number } | 'hang' | 'destroy';

export class Receiver {
  readonly requests: Received[] = [];
  behaviour: (req: Received) => Behaviour = () => ({ status: 200, body: 'ok' });
  private readonly sockets = new Set<Socket>();
  private readonly hanging = new Set<ServerResponse>();
  private server?: Server;
  port = 0;
  /** Requests received and not answered yet, and the most there ever were at once. */
  open = 0;
  mostOpen = 0;

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const received: Received = {
          headers: req.headers,
          rawHeaders: req.rawHeaders,
          body: Buffer.concat(chunks).toString('utf8'),
          at: Date.now(),
        };
        this.requests.push(received);
        this.open += 1;
        this.mostOpen = Math.max(this.mostOpen, this.open);
        res.on('close', () => (this.open -= 1));
        const b = this.behaviour(received);
        if (b === 'hang') {
          this.hanging.add(res);
          return;
        }
        if (b === 'destroy') {
          req.socket.destroy();
          return;
        }
        const answer = () =>
          res.writeHead(b.status, { 'Content-Type': 'text/plain' }).end(b.body ?? '');
        if (b.delayMs) setTimeout(answer, b.delayMs);
        else answer();
      });
    });
    this.server.on('connection', (s) => {
      this.sockets.add(s);
      s.on('close', () => this.sockets.delete(s));
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  /** Answers every request left hanging so far with `status`. */
  answerHanging(status = 200): void {
    for (const res of this.hanging) res.writeHead(status).end('ok');
    this.hanging.clear();
  }

  forDelivery(id: string): Received[] {
    return this.requests.filter((r) => r.headers['x-webhook-delivery-id'] === id);
  }

  async stop(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()) ?? resolve());
  }
}

/** The file's configuration with `overrides`; `file` is appended to its Bull prefix, which names its queues in Redis. */
export function testConfig(file: string, overrides: Partial<AppConfig> = {}): AppConfig {
  const base = loadConfig();
  return { ...base, bullPrefix: `${base.bullPrefix}-${file}`, ...overrides };
}

export function createApiApp(config: AppConfig): Promise<INestApplication> {
  return createTestApp({ override: (b) => b.overrideProvider(APP_CONFIG).useValue(config) });
}

/**
 * The worker's root module in-process, as main.ts builds it (without the health listener);
 * `clock`, when given, is the worker's Clock.
 */
export async function createWorker(config: AppConfig, clock?: Clock): Promise<INestApplication> {
  let builder = Test.createTestingModule({ imports: [WorkerModule] })
    .overrideProvider(APP_CONFIG)
    .useValue(config);
  if (clock) builder = builder.overrideProvider(Clock).useValue(clock);
  const moduleRef = await builder.compile();
  const app = moduleRef.createNestApplication({ logger: testLogger('worker-test') });
  await app.init();
  return app;
}

/**
 * Raises one event as a producer does (`Events.emit` in its transaction, `wake` after the commit)
 * and answers the ids of the deliveries it stored: the rows that transaction wrote. With
 * `wake: false` the dispatchers are not told, as if the wake-up were lost.
 */
export async function emitEvent(
  app: INestApplication,
  organizationId: OrgId,
  type: EventType,
  data: unknown,
  { wake = true } = {},
): Promise<string[]> {
  const events = app.get(Events);
  const ids = await app.get(DataSource).transaction(async (em) => {
    await events.emit(em, organizationId, [{ type, data }]);
    return storedIn(em, organizationId);
  });
  if (wake) events.wake();
  return ids;
}

/** The deliveries of the organization written by the transaction of `em`, in endpoint order. */
export async function storedIn(
  em: { query: (q: string, p: unknown[]) => Promise<{ id: string }[]> },
  organizationId: string,
): Promise<string[]> {
  const rows = await em.query(
    `SELECT id FROM webhook_deliveries
      WHERE organization_id = $1 AND xmin = pg_current_xact_id()::xid
      ORDER BY webhook_endpoint_id`,
    [organizationId],
  );
  return rows.map((r) => r.id);
}
