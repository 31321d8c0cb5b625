import type { ArgumentsHost } from '@nestjs/common';
import { QueryRunnerAlreadyReleasedError } from 'typeorm';
import { GlobalExceptionFilter } from './exception.filter';

/** Runs the filter on `err` and returns the status, headers and body it wrote. */
function answer(err: unknown) {
  const out = { status: 0, headers: {} as Record<string, string>, body: undefined as unknown };
  const res = {
    headersSent: false,
    status(code: number) {
      out.status = code;
      return this;
    },
    setHeader(k: string, v: string) {
      out.headers[k.toLowerCase()] = v;
    },
    getHeader: (k: string) => out.headers[k.toLowerCase()],
    json(b: unknown) {
      out.body = b;
    },
  };
  const host = { switchToHttp: () => ({ getResponse: () => res }) } as unknown as ArgumentsHost;
  new GlobalExceptionFilter().catch(err, host);
  return out;
}

function named(name: string, message: string, code?: string): Error {
  const e = new Error(message) as Error & { code?: string };
  Object.defineProperty(e, 'name', { value: name });
  if (code) e.code = code;
  return e;
}

describe(GlobalExceptionFilter.name, () => {
  it.each([
    ['PostgreSQL refusing connections', named('Error', 'connect ECONNREFUSED', 'ECONNREFUSED')],
    ['PostgreSQL shutting down', named('QueryFailedError', 'terminating connection', '57P01')],
    ['a transaction whose connection died', new QueryRunnerAlreadyReleasedError()],
    [
      'Redis down (ioredis gave up on the command)',
      named(
        'MaxRetriesPerRequestError',
        'Reached the max retries per request limit (which is 2). Refer to "maxRetriesPerRequest" option for details.',
      ),
    ],
  ])('answers %s with 503 and Retry-After', (_what, err) => {
    const out = answer(err);
    expect(out.status).toBe(503);
    expect(out.headers['retry-after']).toBe('5');
    expect(out.body).toEqual({
      success: false,
      message: 'Service temporarily unavailable',
      code: 'E_SERVICE_UNAVAILABLE',
      retryAfter: 5,
    });
  });

  it('answers any other error with 500 and no detail', () => {
    const out = answer(new TypeError("Cannot read properties of undefined (reading 'id')"));
    expect(out.status).toBe(500);
    expect(out.body).toEqual({
      success: false,
      message: 'Internal server error',
      code: 'E_INTERNAL_SERVER_ERROR',
    });
  });
});
