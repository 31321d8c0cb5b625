// The HTTP client of attempts: pinned addresses, the private-target guard, deadline, body prefix.
import { createServer, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadConfig } from '../config/app-config';
import { DnsResolver } from '../dns/resolver';
import { WebhookHttpClient } from './webhook-http.client';

describe(WebhookHttpClient.name, () => {
  let server: Server;
  let port: number;
  const seen: { host?: string; remote?: string }[] = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      seen.push({ host: req.headers.host, remote: req.socket.localAddress });
      if (req.url === '/hang') return;
      if (req.url === '/big') return void res.writeHead(200).end('x'.repeat(100_000));
      if (req.url === '/redirect') return void res.writeHead(302, { Location: '/ok' }).end();
      res.writeHead(201).end('created');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });

  const client = (allowPrivate: boolean) =>
    new WebhookHttpClient(
      {
        ...loadConfig({ ENCRYPTION_KEY: Buffer.alloc(32).toString('base64') }),
        webhookAllowPrivateTargets: allowPrivate,
      },
      new DnsResolver({ dnsServers: [] }),
    );
  const send = (c: WebhookHttpClient, url: string, timeoutMs = 2000) =>
    c.send({ url, headers: { 'Content-Type': 'application/json' }, body: '{}', timeoutMs });

  it('connects to the resolved address of a name, keeping the Host header of the URL', async () => {
    const c = client(true);
    try {
      const r = await send(c, `http://localhost:${port}/ok`);
      expect(r).toEqual({ kind: 'response', status: 201, body: 'created' });
      expect(seen.at(-1)).toEqual({ host: `localhost:${port}`, remote: '127.0.0.1' });
    } finally {
      await c.onModuleDestroy();
    }
  });

  it('refuses a private target before connecting when private targets are not allowed', async () => {
    const c = client(false);
    const before = seen.length;
    try {
      const r = await send(c, `http://127.0.0.1:${port}/ok`);
      expect(r).toEqual({
        kind: 'no_response',
        reason: 'Target address not allowed: 127.0.0.1 is a loopback address',
      });
      expect(seen.length).toBe(before);
    } finally {
      await c.onModuleDestroy();
    }
  });

  it('times out, keeps 4 KB of a body, and does not follow redirects', async () => {
    const c = client(true);
    try {
      expect(await send(c, `http://127.0.0.1:${port}/hang`, 300)).toEqual({
        kind: 'no_response',
        reason: 'Request timed out after 0.3s',
      });
      const big = await send(c, `http://127.0.0.1:${port}/big`);
      expect(big).toMatchObject({ kind: 'response', status: 200 });
      expect((big as { body: string }).body).toHaveLength(4096);
      expect(await send(c, `http://127.0.0.1:${port}/redirect`)).toMatchObject({
        kind: 'response',
        status: 302,
      });
    } finally {
      await c.onModuleDestroy();
    }
  });
});
