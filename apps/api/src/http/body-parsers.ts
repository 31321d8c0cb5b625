// JSON bodies: 1 MiB in general, 15 MiB on the send API (§4). Parser failures become domain errors.
import { INestApplication } from '@nestjs/common';
import { PayloadTooLargeError, ValidationFailedError } from '@app/domain';
import express, { NextFunction, Request, Response } from 'express';

type Parser = (req: Request, res: Response, next: NextFunction) => void;

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

export function installBodyParsers(app: INestApplication): void {
  const sendJson = guarded(express.json({ limit: '15mb' }));
  const json = guarded(express.json({ limit: '1mb' }));
  app.use((req: Request, res: Response, next: NextFunction) =>
    req.path === '/api/v1/send' ? sendJson(req, res, next) : json(req, res, next),
  );
  app.use(guarded(express.urlencoded({ extended: false, limit: '1mb' })));
}
