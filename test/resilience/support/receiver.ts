// The HTTP endpoint webhooks are delivered to: a real node:http server on loopback. Each endpoint
// the suite registers gets its own path (/hook/<name>) with a behaviour the faults switch:
// answer 200, drop the connection (no answer: the platform retries), or never answer (timeout).
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export type HookMode = 'ok' | 'drop' | 'hang';

/** What the platform posts (docs/webhooks.md): `{delivery_id, type, timestamp, data}`. */
export interface WebhookBody {
  delivery_id: string;
  type: string;
  timestamp: string;
  data: Record<string, unknown>;
}

interface Hook {
  mode: HookMode;
  secret?: string;
  /** Requests per delivery id answered 2xx. */
  delivered: Map<string, number>;
  /** The body of each delivery answered 2xx (the first time). */
  bodies: Map<string, WebhookBody>;
  /** Requests of any outcome. */
  requests: number;
  badSignatures: number;
}

/** Checks `t=<unix>,v1=<hex>` against HMAC-SHA256(secret, "<t>.<body>") as docs/webhooks.md says. */
export function signatureValid(secret: string, header: string | undefined, body: string): boolean {
  if (!header) return false;
  const parts = Object.fromEntries(header.split(',').map((p) => p.split('=') as [string, string]));
  if (!parts.t || !parts.v1) return false;
  const expected = createHmac('sha256', secret).update(`${parts.t}.${body}`).digest();
  const got = Buffer.from(parts.v1, 'hex');
  return got.length === expected.length && timingSafeEqual(got, expected);
}

export class WebhookReceiver {
  private server?: Server;
  private readonly hooks = new Map<string, Hook>();
  private readonly hanging = new Set<Socket>();
  private total = 0;
  port = 0;

  get url(): string {
    return `http://127.0.0.1:${this.port}/hook/default`;
  }

  /** URL of a named hook (created on first use, mode `ok`). */
  hookUrl(name: string): string {
    this.hook(name);
    return `http://127.0.0.1:${this.port}/hook/${name}`;
  }

  setMode(name: string, mode: HookMode): void {
    this.hook(name).mode = mode;
  }

  setSecret(name: string, secret: string): void {
    this.hook(name).secret = secret;
  }

  /** Delivery ids answered 2xx on a hook, with how many times each was. */
  delivered(name: string): Map<string, number> {
    return this.hook(name).delivered;
  }

  /** Bodies of the deliveries answered 2xx on a hook, one per delivery id. */
  bodies(name: string): WebhookBody[] {
    return [...this.hook(name).bodies.values()];
  }

  stats(name: string): { requests: number; badSignatures: number } {
    const h = this.hook(name);
    return { requests: h.requests, badSignatures: h.badSignatures };
  }

  /** Every webhook request received, whatever the answer. */
  received(): number {
    return this.total;
  }

  private hook(name: string): Hook {
    let h = this.hooks.get(name);
    if (!h) {
      h = { mode: 'ok', delivered: new Map(), bodies: new Map(), requests: 0, badSignatures: 0 };
      this.hooks.set(name, h);
    }
    return h;
  }

  async start(): Promise<void> {
    this.server = createServer((req, res) => this.handle(req, res));
    this.server.keepAliveTimeout = 5000;
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', () => resolve()));
    this.port = (this.server.address() as AddressInfo).port;
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      this.total++;
      const match = /^\/hook\/([\w.-]+)/.exec(req.url ?? '');
      const hook = this.hook(match ? match[1] : 'default');
      hook.requests++;
      if (hook.mode === 'drop') {
        req.socket.destroy();
        return;
      }
      if (hook.mode === 'hang') {
        // Never answers; the platform's timeout closes the socket.
        this.hanging.add(req.socket);
        req.socket.once('close', () => this.hanging.delete(req.socket));
        return;
      }
      const body = Buffer.concat(chunks).toString('utf8');
      if (hook.secret && !signatureValid(hook.secret, header(req, 'x-webhook-signature'), body)) {
        hook.badSignatures++;
      }
      const id = header(req, 'x-webhook-delivery-id') ?? 'unknown';
      hook.delivered.set(id, (hook.delivered.get(id) ?? 0) + 1);
      if (!hook.bodies.has(id)) {
        try {
          hook.bodies.set(id, JSON.parse(body) as WebhookBody);
        } catch {
          hook.badSignatures++; // not the JSON the platform signs: count it as a bad delivery
        }
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"ok":true}');
    });
  }

  async stop(): Promise<void> {
    for (const s of this.hanging) s.destroy();
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) =>
      this.server ? this.server.close(() => resolve()) : resolve(),
    );
  }
}

function header(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}
