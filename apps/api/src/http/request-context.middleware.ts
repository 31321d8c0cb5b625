// Gives each request an id (kept from X-Request-Id when sane), echoes it, and logs one line per request.
import { Logger } from '@nestjs/common';
import { requestContext } from '@app/domain';
import { randomUUID } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';

const logger = new Logger('http');
const SAFE_ID = /^[A-Za-z0-9._-]{1,64}$/;

export function requestContextMiddleware(req: Request, res: Response, next: NextFunction): void {
  const incoming = req.headers['x-request-id'];
  const requestId =
    typeof incoming === 'string' && SAFE_ID.test(incoming) ? incoming : randomUUID();
  res.setHeader('X-Request-Id', requestId);
  const started = process.hrtime.bigint();
  requestContext.run({ requestId }, () => {
    res.on('finish', () => {
      // The path only: query strings can carry personal data (search by email).
      logger.log({
        msg: 'request',
        method: req.method,
        path: req.originalUrl.split('?')[0],
        status: res.statusCode,
        durationMs: Number(process.hrtime.bigint() - started) / 1e6,
      });
    });
    next();
  });
}
