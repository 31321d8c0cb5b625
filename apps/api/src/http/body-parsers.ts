// JSON bodies: 1 MiB in general, 15 MiB on the send API (§4). Parser failures become domain errors.
// A parsed body is then checked once for what no route can take: nesting deeper than any DTO
// reads (the validation pipe walks bodies recursively and would overflow the stack), NUL
// characters (PostgreSQL text and jsonb cannot hold U+0000) and unpaired surrogates (not text;
// validator's isEmail throws on them), in the body and the query string.
import { INestApplication } from '@nestjs/common';
import { PayloadTooLargeError, ValidationFailedError } from '@app/domain';
import express, { NextFunction, Request, Response } from 'express';

type Parser = (req: Request, res: Response, next: NextFunction) => void;

/** An unpaired UTF-16 surrogate (JSON can escape one; no text column or validator can take it). */
const LONE_SURROGATE = /\p{Cs}/u;

/** Deepest nesting of objects and arrays a body may have (segment rules need about a dozen). */
export const MAX_BODY_DEPTH = 64;

function guarded(parser: Parser): Parser {
  return (req, res, next) =>
    parser(req, res, (err?: unknown) => {
      if (!err) return next();
      const e = err as { type?: string; status?: number };
      if (e.type === 'entity.too.large') return next(new PayloadTooLargeError());
      if (e.type === 'entity.parse.failed') {
        return next(ValidationFailedError.field('body', 'type', 'Request body is not valid JSON'));
      }
      return next(ValidationFailedError.field('body', 'type', 'Request body could not be read'));
    });
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

export function installBodyParsers(app: INestApplication): void {
  const sendJson = guarded(express.json({ limit: '15mb' }));
  const json = guarded(express.json({ limit: '1mb' }));
  app.use((req: Request, res: Response, next: NextFunction) =>
    req.path === '/api/v1/send' ? sendJson(req, res, next) : json(req, res, next),
  );
  app.use(guarded(express.urlencoded({ extended: false, limit: '1mb' })));
  app.use(checkParsed);
}
