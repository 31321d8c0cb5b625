// Gives each request an id (kept from X-Request-Id when sane), echoes it, and logs one line per request.
import { Logger } from '@nestjs/common';
import { requestContext } from '@app/domain/logging/request-context';
import { randomUUID } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';

const logger = new Logger('http');
const SAFE_ID = /^[A-Za-z0-9._-]{1,64}$/;
// Unsubscribe (/u/{token}), open pixel (/t/o/{token}.gif) and click (/t/c/{token}): the token is a
// credential for its recipient. Routes match case-insensitively, so the redaction does too.
const TOKEN_PATH = /^(\/u\/|\/t\/[oc]\/)([^/]*)(.*)$/i;

/** The path a request line logs: no query string (it can carry personal data), no token. */
export function loggedPath(url: string): string {
  const path = url.split('?')[0];
  const m = TOKEN_PATH.exec(path);
  if (!m) return path;
  return `${m[1]}…${/\.gif$/i.test(m[2]) ? '.gif' : ''}${m[3] ? '/…' : ''}`;
}

export function requestContextMiddleware(req: Request, res: Response, next: NextFunction): void {
  const incoming = req.headers['x-request-id'];
  const requestId =
    typeof incoming === 'string' && SAFE_ID.test(incoming) ? incoming : randomUUID();
  res.setHeader('X-Request-Id', requestId);
  const started = process.hrtime.bigint();
  requestContext.run({ requestId }, () => {
    res.on('finish', () => {
      logger.log({
        msg: 'request',
        method: req.method,
        path: loggedPath(req.originalUrl),
        status: res.statusCode,
        durationMs: Number(process.hrtime.bigint() - started) / 1e6,
      });
    });
    next();
  });
}
