import {
  ArgumentsHost,
  BadRequestException,
  HttpException,
  Logger,
  MethodNotAllowedException,
  NotFoundException,
  PayloadTooLargeException,
  UnsupportedMediaTypeException,
} from '@nestjs/common';
import {
  ERROR_CODES,
  InvalidStateError,
  PayloadTooLargeError,
} from '@app/domain/errors/domain-errors';
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
  // What the filter logs is collected here for the tests to read, never printed.
  const logged: { level: string; message: unknown }[] = [];
  const capture =
    (level: string) =>
    (message: unknown): void => {
      logged.push({ level, message });
    };
  beforeAll(() =>
    Logger.overrideLogger({
      log: capture('log'),
      error: capture('error'),
      warn: capture('warn'),
      debug: capture('debug'),
      verbose: capture('verbose'),
    }),
  );
  afterAll(() => Logger.overrideLogger(true));
  beforeEach(() => (logged.length = 0));

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
    ['a Redis Cluster with a master down', named('ReplyError', 'CLUSTERDOWN The cluster is down')],
    [
      'a Redis Cluster out of redirections',
      named('Error', 'Too many Cluster redirections. Last error: Error: Connection is closed.'),
    ],
    [
      'a Redis Cluster with no node reachable',
      named('ClusterAllFailedError', 'Failed to refresh slots cache.'),
    ],
  ])('answers %s with 503 and Retry-After', (_what, err) => {
    const out = answer(err);
    expect(logged).toEqual([
      { level: 'warn', message: expect.objectContaining({ msg: 'store unavailable' }) },
    ]);
    expect(out.status).toBe(503);
    expect(out.headers['retry-after']).toBe('5');
    expect(out.body).toEqual({
      success: false,
      message: 'Service temporarily unavailable',
      code: 'E_SERVICE_UNAVAILABLE',
      retryAfter: 5,
    });
  });

  it('answers any other error, a 5xx HttpException included, with 500 and no detail', () => {
    const bug = new TypeError("Cannot read properties of undefined (reading 'id')");
    const out = answer(bug);
    expect(logged).toEqual([{ level: 'error', message: bug }]);
    expect(answer(new HttpException('Bad gateway', 502)).body).toEqual(out.body);
    expect(out.status).toBe(500);
    expect(out.body).toEqual({
      success: false,
      message: 'Internal server error',
      code: 'E_INTERNAL_SERVER_ERROR',
    });
  });

  it('answers a delivered-delivery resend with 400 E_BUSINESS_RULE_VIOLATION', () => {
    const out = answer(
      new InvalidStateError('Cannot retry a delivery that has already been delivered'),
    );
    expect(out.status).toBe(400);
    expect(out.body).toEqual({
      success: false,
      message: 'Cannot retry a delivery that has already been delivered',
      code: 'E_BUSINESS_RULE_VIOLATION',
    });
  });

  it('answers a body over the limit with 413 E_VALIDATION_ERROR naming body, rule max', () => {
    const out = answer(new PayloadTooLargeError('Request body is larger than 1 MiB'));
    expect(out.status).toBe(413);
    expect(out.body).toEqual({
      success: false,
      message: 'Request body is larger than 1 MiB',
      code: 'E_VALIDATION_ERROR',
      errors: [{ field: 'body', rule: 'max', message: 'Request body is larger than 1 MiB' }],
    });
  });

  it.each([
    ['an unmatched route', new NotFoundException('Cannot GET /x'), 404, 'E_ROW_NOT_FOUND'],
    ['a method not allowed', new MethodNotAllowedException(), 404, 'E_ROW_NOT_FOUND'],
    [
      'an undecodable path',
      new BadRequestException("Failed to decode param '%ZZ'"),
      422,
      'E_VALIDATION_ERROR',
    ],
    ['another 400', new BadRequestException('anything'), 422, 'E_VALIDATION_ERROR'],
    ['a 415', new UnsupportedMediaTypeException(), 422, 'E_VALIDATION_ERROR'],
    ['a 418', new HttpException('I am a teapot', 418), 422, 'E_VALIDATION_ERROR'],
    ['a 413', new PayloadTooLargeException(), 413, 'E_VALIDATION_ERROR'],
    ['a 429', new HttpException('Too many', 429), 429, 'E_TOO_MANY_REQUESTS'],
    ['a 503', new HttpException('Unavailable', 503), 503, 'E_SERVICE_UNAVAILABLE'],
  ])('answers %s HttpException with a code of the spec list', (_what, err, status, code) => {
    const out = answer(err);
    expect(out.status).toBe(status);
    expect((out.body as { code: string }).code).toBe(code);
    expect(ERROR_CODES).toContain(code);
  });

  it('names the path of a parameter Express cannot decode', () => {
    const out = answer(new BadRequestException("Failed to decode param '%ZZ'"));
    expect((out.body as { errors: unknown }).errors).toEqual([
      { field: 'path', rule: 'type', message: "Failed to decode param '%ZZ'" },
    ]);
  });
});
