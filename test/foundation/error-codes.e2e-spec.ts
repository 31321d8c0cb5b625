// §16: every error answer carries a code of the spec's list (plus 500 and 503). Walks malformed
// requests over a raw socket (bytes no HTTP client would send included) and checks each answer with
// the resilience fuzzer's classifier, which refuses an out-of-list code.
import { INestApplication } from '@nestjs/common';
import { ERROR_CODES } from '@app/domain';
import { AddressInfo, connect } from 'node:net';
import { createTestApp } from '../support/app';
import { createSession, Session } from '../support/session';
import { checkAnswer } from '../resilience/support/envelope';
import type { HttpAnswer } from '../resilience/support/http';

const MiB = 1024 * 1024;

interface Case {
  label: string;
  /** The request as sent; `KEY` is replaced by a valid API key. */
  bytes: string | Buffer;
  status: number;
  code: string;
  /** The field the 422 (or 413, 431) names. */
  field?: string;
}

describe('Error codes of malformed requests', () => {
  let app: INestApplication;
  let s: Session;
  let port: number;

  beforeAll(async () => {
    app = await createTestApp();
    s = await createSession(app);
    await app.listen(0, '127.0.0.1');
    port = (app.getHttpServer().address() as AddressInfo).port;
  });
  afterAll(() => app.close());

  /** Sends `bytes` and reads the answer until the server closes (every case asks it to). */
  const exchange = (bytes: Buffer): Promise<HttpAnswer> =>
    new Promise((resolve, reject) => {
      const socket = connect(port, '127.0.0.1');
      const chunks: Buffer[] = [];
      const timer = setTimeout(() => {
        socket.destroy();
        reject(new Error('no answer within 5 s'));
      }, 5000);
      socket.on('data', (c: Buffer) => chunks.push(c));
      socket.on('error', reject);
      socket.on('close', () => {
        clearTimeout(timer);
        const raw = Buffer.concat(chunks);
        const split = raw.indexOf('\r\n\r\n');
        const head = raw.subarray(0, split).toString('latin1').split('\r\n');
        const headers: Record<string, string> = {};
        for (const line of head.slice(1)) {
          const at = line.indexOf(':');
          headers[line.slice(0, at).toLowerCase()] = line.slice(at + 1).trim();
        }
        const body = raw.subarray(split + 4);
        let json: unknown;
        try {
          json = JSON.parse(body.toString('utf8'));
        } catch {
          json = undefined;
        }
        resolve({ status: Number(head[0].split(' ')[1]), headers, body, json, ms: 0 });
      });
      socket.write(bytes);
    });

  const req = (line: string, headers: string[], body = ''): string =>
    `${line}\r\n${['Host: api.test', 'Connection: close', ...headers].join('\r\n')}\r\n\r\n${body}`;
  const json = (method: string, path: string, body: string, extra: string[] = []) =>
    req(
      `${method} ${path} HTTP/1.1`,
      [
        'X-API-Key: KEY',
        'Content-Type: application/json',
        `Content-Length: ${Buffer.byteLength(body)}`,
        ...extra,
      ],
      body,
    );
  const get = (path: string, extra: string[] = ['X-API-Key: KEY']) =>
    req(`GET ${path} HTTP/1.1`, extra);

  const cases: Case[] = [
    {
      label: 'malformed JSON',
      bytes: json('POST', '/api/v1/user/contacts', '{"firstName":'),
      status: 422,
      code: 'E_VALIDATION_ERROR',
      field: 'body',
    },
    {
      label: 'a text/plain body',
      bytes: json('POST', '/api/v1/user/contacts', '{"firstName":"a"}').replace(
        'application/json',
        'text/plain',
      ),
      status: 422,
      code: 'E_VALIDATION_ERROR',
      field: 'content-type',
    },
    {
      label: 'an XML body on the send API',
      bytes: json('POST', '/api/v1/send', '<mail/>').replace('application/json', 'application/xml'),
      status: 422,
      code: 'E_VALIDATION_ERROR',
      field: 'content-type',
    },
    {
      label: 'an unsupported charset',
      bytes: json('POST', '/api/v1/user/contacts', '{}').replace(
        'application/json',
        'application/json; charset=bogus',
      ),
      status: 422,
      code: 'E_VALIDATION_ERROR',
      field: 'body',
    },
    {
      label: 'an unsupported content encoding',
      bytes: json('POST', '/api/v1/user/contacts', '{}', ['Content-Encoding: zz']),
      status: 422,
      code: 'E_VALIDATION_ERROR',
      field: 'body',
    },
    {
      label: 'a body over 1 MiB (announced, not sent)',
      bytes: req('POST /api/v1/user/contacts HTTP/1.1', [
        'X-API-Key: KEY',
        'Content-Type: application/json',
        `Content-Length: ${MiB + 1}`,
      ]),
      status: 413,
      code: 'E_VALIDATION_ERROR',
      field: 'body',
    },
    {
      label: 'a send body over 15 MiB (announced, not sent)',
      bytes: req('POST /api/v1/send HTTP/1.1', [
        'X-API-Key: KEY',
        'Content-Type: application/json',
        `Content-Length: ${15 * MiB + 1}`,
      ]),
      status: 413,
      code: 'E_VALIDATION_ERROR',
      field: 'body',
    },
    { label: 'an unknown route', bytes: get('/api/v1/nope'), status: 404, code: 'E_ROW_NOT_FOUND' },
    {
      label: 'a method the route does not have',
      bytes: req('PUT /api/v1/user/contacts HTTP/1.1', ['X-API-Key: KEY']),
      status: 404,
      code: 'E_ROW_NOT_FOUND',
    },
    {
      label: 'OPTIONS',
      bytes: req('OPTIONS /api/v1/user/contacts HTTP/1.1', []),
      status: 404,
      code: 'E_ROW_NOT_FOUND',
    },
    {
      label: 'a method token HTTP does not know',
      bytes: req('FOO /api/v1/user/contacts HTTP/1.1', []),
      status: 404,
      code: 'E_ROW_NOT_FOUND',
    },
    {
      label: 'a path id that is not a UUID',
      bytes: get('/api/v1/user/contacts/not-a-uuid'),
      status: 422,
      code: 'E_VALIDATION_ERROR',
      field: 'id',
    },
    {
      label: 'a path id whose percent-encoding is not UTF-8',
      bytes: get('/api/v1/user/contacts/%E0%A4%A'),
      status: 422,
      code: 'E_VALIDATION_ERROR',
      field: 'path',
    },
    {
      label: 'an unknown jobId',
      bytes: get('/api/v1/user/messages/job_does_not_exist'),
      status: 404,
      code: 'E_ROW_NOT_FOUND',
    },
    {
      label: 'a jobId over 255 characters',
      bytes: get(`/api/v1/user/messages/${'j'.repeat(256)}`),
      status: 422,
      code: 'E_VALIDATION_ERROR',
      field: 'jobId',
    },
    {
      label: 'a missing credential',
      bytes: get('/api/v1/user/contacts', []),
      status: 401,
      code: 'E_UNAUTHORIZED_ACCESS',
    },
    {
      label: 'headers over the size limit',
      bytes: get('/api/v1/user/contacts', ['X-API-Key: KEY', `X-Big: ${'x'.repeat(20_000)}`]),
      status: 431,
      code: 'E_VALIDATION_ERROR',
      field: 'headers',
    },
    {
      label: 'bytes that are not HTTP in the request line',
      bytes: Buffer.concat([
        Buffer.from('GET /api/v1/user/contacts/'),
        Buffer.from([0xff, 0xfe]),
        Buffer.from(' HTTP/1.1\r\nHost: x\r\n\r\n'),
      ]),
      status: 422,
      code: 'E_VALIDATION_ERROR',
      field: 'url',
    },
    {
      label: 'Content-Length with Transfer-Encoding',
      bytes: req(
        'POST /api/v1/user/contacts HTTP/1.1',
        ['Content-Length: 5', 'Transfer-Encoding: chunked'],
        '0\r\n\r\n',
      ),
      status: 422,
      code: 'E_VALIDATION_ERROR',
      field: 'headers',
    },
    {
      label: 'a Content-Length that is not a number',
      bytes: req('POST /api/v1/user/contacts HTTP/1.1', ['Content-Length: abc']),
      status: 422,
      code: 'E_VALIDATION_ERROR',
      field: 'headers',
    },
    {
      label: 'an invalid HTTP version',
      bytes: 'GET /api/v1/user/contacts HTTP/3.0\r\nHost: x\r\n\r\n',
      status: 422,
      code: 'E_VALIDATION_ERROR',
      field: 'request',
    },
    {
      label: 'HTTP/1.1 without Host',
      bytes: 'GET /api/v1/user/contacts HTTP/1.1\r\nConnection: close\r\n\r\n',
      status: 422,
      code: 'E_VALIDATION_ERROR',
      field: 'host',
    },
    {
      label: 'an Expect other than 100-continue',
      bytes: json('POST', '/api/v1/user/contacts', '{}', ['Expect: teapot']),
      status: 422,
      code: 'E_VALIDATION_ERROR',
      field: 'expect',
    },
  ];

  it.each(cases)('answers $label with $status $code', async (c) => {
    const bytes =
      typeof c.bytes === 'string' ? Buffer.from(c.bytes.replace('KEY', s.apiKey)) : c.bytes;
    const answer = await exchange(bytes);
    const body = answer.json as { code: string; errors?: { field: string }[] };
    expect({ status: answer.status, code: body?.code }).toEqual({ status: c.status, code: c.code });
    expect(ERROR_CODES).toContain(body.code);
    expect(checkAnswer(answer, 'envelope')).toBeNull();
    if (c.field) expect(body.errors).toEqual([expect.objectContaining({ field: c.field })]);
  });

  it('the fuzzer classifier refuses a code outside the list, whatever its status', () => {
    const answer = (status: number, code: string): HttpAnswer => {
      const body = { success: false, message: 'x', code };
      return {
        status,
        headers: { 'content-type': 'application/json' },
        body: Buffer.from(JSON.stringify(body)),
        json: body,
        ms: 0,
      };
    };
    for (const [status, code] of [
      [400, 'E_BAD_REQUEST'],
      [413, 'E_PAYLOAD_TOO_LARGE'],
      [431, 'E_HEADERS_TOO_LARGE'],
      [405, 'E_METHOD_NOT_ALLOWED'],
      [404, 'E_NOT_FOUND'],
    ] as const) {
      expect(checkAnswer(answer(status, code), 'envelope')).toMatch(/not in the spec's list/);
    }
    expect(checkAnswer(answer(404, 'E_ROW_NOT_FOUND'), 'envelope')).toBeNull();
  });
});
