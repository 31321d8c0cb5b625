// Request bodies (§4, §16): read before routing up to 64 KB, after the guards beyond.
import { CanActivate, ExecutionContext, INestApplication, Injectable } from '@nestjs/common';
import { PayloadTooLargeError, ValidationFailedError } from '@app/domain';
import express, { NextFunction, Request, Response } from 'express';

/*
 * JSON up to 1 MiB in general and 15 MiB on the send API, URL-encoded forms up to 1 MiB; parser
 * failures become domain errors. A body of at most 64 KB is read before
 * routing; a larger or unsized (chunked) one only once the route's guards passed (credential,
 * per-key limit, scopes; the send API's per-IP limits run before them), so a refused client never
 * makes the server read it. A parsed body is then checked once for what no route can take:
 * nesting deeper than any DTO reads (the validation pipe walks bodies recursively and would
 * overflow the stack), NUL characters (PostgreSQL text and jsonb cannot hold U+0000) and unpaired
 * surrogates (not text; validator's isEmail throws on them), in the body and the query string.
 */
type Parser = (req: Request, res: Response, next: NextFunction) => void;

/** Bodies up to this size are read before authentication; larger or chunked ones after it. */
export const EARLY_BODY_BYTES = 64 * 1024;

/** Content types parsed here, and those a route reads (multipart: the import upload streams it). */
const PARSED_TYPES = ['application/json', 'application/x-www-form-urlencoded'];
const READABLE_TYPES = [...PARSED_TYPES, 'multipart/form-data'];

const MiB = 1024 * 1024;

/** Set on a request whose body waits for the guards. */
const DEFERRED = Symbol('body read after the guards');
type BodyRequest = Request & { [DEFERRED]?: boolean };

/** An unpaired UTF-16 surrogate (JSON can escape one; no text column or validator can take it). */
const LONE_SURROGATE = /\p{Cs}/u;

/** Deepest nesting of objects and arrays a body may have (segment rules need about a dozen). */
export const MAX_BODY_DEPTH = 64;

function guarded(parser: Parser, limit: string): Parser {
  return (req, res, next) =>
    parser(req, res, (err?: unknown) => {
      if (!err) return next();
      const e = err as { type?: string; status?: number };
      if (e.type === 'entity.too.large') return next(tooLarge(req, res, limit));
      if (e.type === 'entity.parse.failed') {
        return next(ValidationFailedError.field('body', 'type', 'Request body is not valid JSON'));
      }
      return next(ValidationFailedError.field('body', 'type', 'Request body could not be read'));
    });
}

function contentLength(req: Request): number {
  return Number(req.headers['content-length'] ?? 0);
}

/** Whether the body is small enough, and its size known, to be read before authentication. */
function readsEarly(req: Request): boolean {
  return req.headers['transfer-encoding'] === undefined && contentLength(req) <= EARLY_BODY_BYTES;
}

/**
 * The first thing in `value` no route can take, as a 422, or null. Iterative: a recursive walk
 * is what this guards against.
 */
export function unacceptableInput(value: unknown, root: string): ValidationFailedError | null {
  const stack: Array<[unknown, string, number]> = [[value, root, 0]];
  while (stack.length) {
    const [v, path, depth] = stack.pop()!;
    if (typeof v === 'string') {
      if (v.includes('\0')) {
        return ValidationFailedError.field(path, 'type', `${path} must not contain NUL characters`);
      }
      if (LONE_SURROGATE.test(v)) {
        return ValidationFailedError.field(path, 'type', `${path} must be valid Unicode text`);
      }
      continue;
    }
    if (v === null || typeof v !== 'object') continue;
    if (depth >= MAX_BODY_DEPTH) {
      return ValidationFailedError.field(
        root,
        'type',
        `${root} nests deeper than ${MAX_BODY_DEPTH} levels`,
      );
    }
    for (const key of Object.keys(v)) {
      const child = path === root ? key : `${path}.${key}`;
      if (key.includes('\0')) {
        return ValidationFailedError.field(
          root,
          'type',
          `${root} keys must not contain NUL characters`,
        );
      }
      stack.push([(v as Record<string, unknown>)[key], child, depth + 1]);
    }
  }
  return null;
}

function checkParsed(req: Request, _res: Response, next: NextFunction): void {
  next(unacceptableInput(req.body, 'body') ?? unacceptableInput(req.query, 'query') ?? undefined);
}

/**
 * Bounds of reading a refused body to its end (nginx's lingering close): at most this many bytes,
 * this long in all, and this long without a byte (nginx's lingering_time and lingering_timeout).
 */
export const DRAIN = { maxBytes: 64 * MiB, maxMs: 30_000, idleMs: 5_000 };

/**
 * The 413 for a body over `limit`, answered with `Connection: close` once the client has finished
 * sending. Closing under a client that is still writing resets the connection, and the client's
 * next write fails (EPIPE, ECONNRESET) before it reads the answer. So what is left of the body is
 * read and discarded, chunk by chunk (nothing is kept), within DRAIN's bounds; Node would destroy
 * the socket as soon as the answer is written, so its destroySoon is replaced on this socket by
 * one that only ends the writing side (the client sees the answer and the close) and destroys the
 * socket when the body has ended or a bound is reached. A body past the bounds gets the answer
 * and a close: nothing better is possible.
 */
function tooLarge(req: Request, res: Response, limit: string): PayloadTooLargeError {
  res.setHeader('Connection', 'close');
  if (!req.complete) lingerUntilBodyEnds(req);
  return new PayloadTooLargeError(`Request body is larger than ${limit}`);
}

function lingerUntilBodyEnds(req: Request): void {
  const socket = req.socket;
  let drained = 0;
  let bodyDone = false;
  let answered = false;
  const close = () => {
    clearTimeout(overall);
    clearTimeout(idle);
    socket.destroy();
  };
  const overall = setTimeout(close, DRAIN.maxMs).unref();
  const idle = setTimeout(close, DRAIN.idleMs).unref();
  const stop = () => {
    bodyDone = true;
    if (answered) close();
  };
  req.on('data', (chunk: Buffer) => {
    drained += chunk.length;
    idle.refresh();
    if (drained > DRAIN.maxBytes) {
      req.pause();
      stop();
    }
  });
  req.once('end', stop);
  socket.once('close', () => {
    clearTimeout(overall);
    clearTimeout(idle);
  });
  req.resume();
  socket.destroySoon = function lingeringClose(this: typeof socket) {
    if (this.writable) this.end();
    const flushed = () => {
      answered = true;
      if (bodyDone) close();
    };
    if (this.writableFinished) flushed();
    else this.once('finish', flushed);
  };
}

const SEND_LIMIT = { bytes: 15 * MiB, text: '15 MiB' };
const LIMIT = { bytes: MiB, text: '1 MiB' };

const sendJson = guarded(express.json({ limit: SEND_LIMIT.bytes }), SEND_LIMIT.text);
const json = guarded(express.json({ limit: LIMIT.bytes }), LIMIT.text);
const form = guarded(express.urlencoded({ extended: false, limit: LIMIT.bytes }), LIMIT.text);
/** A provider callback's body stays bytes: its signature covers them as sent (§17). */
const rawCallback = guarded(express.raw({ type: PARSED_TYPES, limit: LIMIT.bytes }), LIMIT.text);
export const CALLBACK_PATH = '/channels/callbacks/';

/**
 * Parses and checks one request's body. A body in a type no parser reads is refused rather than
 * ignored (a client sending text/plain would otherwise see its fields silently dropped). A
 * Content-Length over the limit is refused before any byte is read: the parser would read the
 * whole body off the connection first.
 */
function readBody(req: Request, res: Response, next: NextFunction): void {
  const hasBody = req.headers['transfer-encoding'] !== undefined || contentLength(req) > 0;
  if (hasBody && req.headers['content-type'] !== undefined && !req.is(READABLE_TYPES)) {
    return next(
      ValidationFailedError.field(
        'content-type',
        'enum',
        'Content-Type must be application/json (multipart/form-data for a file upload)',
      ),
    );
  }
  if (req.path.startsWith(CALLBACK_PATH)) return rawCallback(req, res, next);
  const send = req.path === '/api/v1/send';
  const limit = send ? SEND_LIMIT : LIMIT;
  if (contentLength(req) > limit.bytes && req.is(PARSED_TYPES)) {
    return next(tooLarge(req, res, limit.text));
  }
  (send ? sendJson : json)(req, res, (err?: unknown) => {
    if (err) return next(err);
    form(req, res, (formErr?: unknown) => (formErr ? next(formErr) : checkParsed(req, res, next)));
  });
}

export function installBodyParsers(app: INestApplication): void {
  app.use((req: Request, res: Response, next: NextFunction) => {
    if (readsEarly(req)) return readBody(req, res, next);
    (req as BodyRequest)[DEFERRED] = true;
    next();
  });
}

/**
 * The last global guard: reads a body the middleware left for after authentication (§16). A
 * request refused earlier leaves its body unread; Node discards it once the answer is sent.
 */
@Injectable()
export class DeferredBodyGuard implements CanActivate {
  canActivate(ctx: ExecutionContext): boolean | Promise<boolean> {
    if (ctx.getType() !== 'http') return true;
    const req = ctx.switchToHttp().getRequest<BodyRequest>();
    if (!req[DEFERRED]) return true;
    req[DEFERRED] = false;
    const res = ctx.switchToHttp().getResponse<Response>();
    return new Promise((resolve, reject) =>
      readBody(req, res, (err?: unknown) => (err ? reject(err) : resolve(true))),
    );
  }
}
