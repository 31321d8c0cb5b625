// A body over its limit (§4: 1 MiB, the send API 15 MiB) is answered 413 with the error envelope
// the client can read: the server reads and discards the rest of the upload (within bounds) before
// it closes the connection, so a client still writing sees the answer, not EPIPE or ECONNRESET.
// The server's keep-alive and header timeouts come from the configuration.
import { INestApplication } from '@nestjs/common';
import { execFile } from 'node:child_process';
import { once } from 'node:events';
import type { Server } from 'node:http';
import { AddressInfo, connect, Socket } from 'node:net';
import { promisify } from 'node:util';
import { DRAIN } from '../../apps/api/src/http/body-parsers';
import { sendingEnv } from '../sending/support/sending';
import { createTestApp } from '../support/app';
import { waitFor } from '../support/wait-for';
import { createSession, Session } from '../support/session';

const MiB = 1024 * 1024;

const envelope = (limit: string) => ({
  success: false,
  message: `Request body is larger than ${limit}`,
  code: 'E_VALIDATION_ERROR',
  errors: [{ field: 'body', rule: 'max', message: `Request body is larger than ${limit}` }],
});

const run = promisify(execFile);

/** The client process: posts the body `times` times and prints each outcome as JSON. */
const CLIENT = `
const { url, key, bytes, times, chunked } = JSON.parse(process.argv[1]);
const json = JSON.stringify({ from: 'a@b.test', text: 'x'.repeat(bytes) });
const streamOf = (data) => {
  let offset = 0;
  return new ReadableStream({
    pull(c) {
      if (offset >= data.length) return c.close();
      c.enqueue(data.subarray(offset, (offset += 65536)));
    },
  });
};
(async () => {
  const outcomes = [];
  for (let i = 0; i < times; i++) {
    try {
      const body = chunked ? streamOf(new TextEncoder().encode(json)) : json;
      const res = await fetch(url, {
        method: 'POST',
        body,
        duplex: 'half',
        headers: { 'Content-Type': 'application/json', 'X-API-Key': key },
      });
      const answer = { status: res.status, connection: res.headers.get('connection') };
      outcomes.push({ ...answer, body: await res.json() });
    } catch (err) {
      outcomes.push({ error: err.cause?.code ?? err.message });
    }
  }
  process.stdout.write(JSON.stringify(outcomes));
})();
`;

/** What a raw connection received: the answer's head and body, and whether the server closed. */
interface RawAnswer {
  head: string;
  body: unknown;
}

describe('Bodies over the limit', () => {
  let app: INestApplication;
  let s: Session;
  let base: string;
  let port: number;
  /** The server's side of each connection, by the client's port. */
  const peers = new Map<number, Socket>();

  beforeAll(async () => {
    sendingEnv({ HTTP_KEEP_ALIVE_TIMEOUT_MS: '4000', HTTP_HEADERS_TIMEOUT_MS: '7000' });
    app = await createTestApp();
    s = await createSession(app);
    await app.listen(0, '127.0.0.1');
    const server = app.getHttpServer() as Server;
    server.on('connection', (peer: Socket) => peers.set(peer.remotePort!, peer));
    port = (server.address() as AddressInfo).port;
    base = `http://127.0.0.1:${port}`;
  });
  afterAll(async () => {
    delete process.env.HTTP_KEEP_ALIVE_TIMEOUT_MS;
    delete process.env.HTTP_HEADERS_TIMEOUT_MS;
    await app.close();
  });

  /**
   * Posts a JSON body of about `bytes` bytes `times` times with Node's fetch (undici) from another
   * process, as a client would: in this process the client would write only between the server's
   * steps. Each outcome is the answer or the error code the client saw.
   */
  const postFromAnotherProcess = async (
    path: string,
    bytes: number,
    opts: { chunked?: boolean; times?: number } = {},
  ): Promise<unknown[]> => {
    const args = { url: `${base}${path}`, key: s.apiKey, bytes, times: opts.times ?? 3, ...opts };
    const { stdout } = await run(process.execPath, ['-e', CLIENT, JSON.stringify(args)]);
    return JSON.parse(stdout) as unknown[];
  };

  const answer413 = (limit: string) => ({
    status: 413,
    connection: 'close',
    body: envelope(limit),
  });

  it('answers a 16 MiB send body with the 413 envelope, three times out of three', async () => {
    const outcomes = await postFromAnotherProcess('/api/v1/send', 16 * MiB);
    expect(outcomes).toEqual(Array(3).fill(answer413('15 MiB')));
  });

  it('answers a 2 MiB body on a 1 MiB route the same', async () => {
    const outcomes = await postFromAnotherProcess('/api/v1/user/contacts', 2 * MiB);
    expect(outcomes).toEqual(Array(3).fill(answer413('1 MiB')));
  });

  it('answers a chunked upload over the limit the same', async () => {
    expect(await postFromAnotherProcess('/api/v1/send', 16 * MiB, { chunked: true })).toEqual(
      Array(3).fill(answer413('15 MiB')),
    );
    expect(
      await postFromAnotherProcess('/api/v1/user/contacts', 2 * MiB, { chunked: true }),
    ).toEqual(Array(3).fill(answer413('1 MiB')));
  });

  /**
   * A connection that announced a send body of `announced` bytes and wrote `first` of them. It
   * keeps writing after the server's half-close, as a client that reads only once its upload is
   * done would.
   */
  const announce = (announced: number, first: number) => {
    const socket = connect({ port, host: '127.0.0.1', allowHalfOpen: true });
    socket.write(
      'POST /api/v1/send HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n' +
        `X-API-Key: ${s.apiKey}\r\nContent-Length: ${announced}\r\n\r\n`,
    );
    socket.write(Buffer.alloc(first, 'x'));
    const chunks: Buffer[] = [];
    socket.on('data', (c: Buffer) => chunks.push(c));
    /** The answer, as soon as all of it arrived. */
    const answer = new Promise<RawAnswer>((resolve, reject) => {
      const check = () => {
        const text = Buffer.concat(chunks).toString('utf8');
        const end = text.indexOf('\r\n\r\n');
        const length = Number(/content-length: (\d+)/i.exec(text)?.[1] ?? NaN);
        if (end < 0 || text.length < end + 4 + length) return;
        socket.off('data', check);
        resolve({ head: text.slice(0, end), body: JSON.parse(text.slice(end + 4)) });
      };
      socket.on('data', check);
      socket.once('error', reject);
    });
    /** Settles once the server closed the connection; `error` is what the client saw, if any. */
    const closed = new Promise<{ error?: string }>((resolve) => {
      socket.once('error', (err: NodeJS.ErrnoException) => resolve({ error: err.code }));
      socket.once('close', () => resolve({}));
    });
    return { socket, answer, closed };
  };

  /** Writes `bytes` more, in order, resolving once all were handed to the kernel. */
  const writeMore = async (socket: Socket, closed: Promise<unknown>, bytes: number) => {
    const chunk = Buffer.alloc(MiB, 'x');
    for (let left = bytes; left > 0 && !socket.destroyed; left -= chunk.length) {
      const part = left >= chunk.length ? chunk : chunk.subarray(0, left);
      if (!socket.write(part)) await Promise.race([once(socket, 'drain'), closed]);
    }
  };

  it('answers an announced Content-Length over the limit before the body, then reads it to the end before closing', async () => {
    const announced = 16 * MiB;
    const first = 256 * 1024;
    const { socket, answer, closed } = announce(announced, first);
    // The answer comes while nearly all of the body is still unsent.
    const res = await answer;
    const peer = peers.get(socket.localPort!)!;
    expect(res.head).toMatch(/^HTTP\/1\.1 413 /);
    expect(res.head).toMatch(/\r\nconnection: close/i);
    expect(res.body).toEqual(envelope('15 MiB'));
    // The client finishes its upload and closes without an error; the server has closed its side.
    await writeMore(socket, closed, announced - first);
    socket.end();
    expect(await closed).toEqual({});
    // The server's side closed once it had read the whole body.
    await waitFor(() => peer.destroyed, { what: 'the server to close', timeoutMs: 3000 });
    expect(peer.bytesRead).toBeGreaterThan(announced);
  });

  it('closes after reading DRAIN.maxBytes of a body that goes on, the answer sent first', async () => {
    const announced = DRAIN.maxBytes * 4;
    const first = 256 * 1024;
    const { socket, answer, closed } = announce(announced, first);
    expect((await answer).body).toEqual(envelope('15 MiB'));
    const peer = peers.get(socket.localPort!)!;
    let written = first;
    const chunk = Buffer.alloc(MiB, 'x');
    let open = true;
    void closed.then(() => (open = false));
    while (open && written < announced) {
      written += chunk.length;
      if (!socket.write(chunk)) {
        await Promise.race([once(socket, 'drain'), closed]);
      }
    }
    await closed;
    // The server stopped reading at its bound; the client wrote a little more into the buffers.
    expect(peer.bytesRead).toBeGreaterThan(DRAIN.maxBytes);
    expect(peer.bytesRead).toBeLessThan(DRAIN.maxBytes + 4 * MiB);
    expect(written).toBeLessThan(announced);
    socket.destroy();
  });

  it('sets the keep-alive and header timeouts of the configuration', async () => {
    const server = app.getHttpServer() as Server;
    expect(server.keepAliveTimeout).toBe(4000);
    expect(server.headersTimeout).toBe(7000);
    const res = await fetch(`${base}/health`);
    await res.text();
    expect(res.headers.get('keep-alive')).toBe('timeout=4');
  });
});
