// The success envelope of §4, put on in the HTTP adapter (kept for speed: docs/performance.md).
import { CanActivate, ExecutionContext, INestApplication, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { buildPageMeta, Page } from '@app/domain/common/pagination';
import type { Request, Response } from 'express';
import { RESPONSE_MESSAGE } from './decorators';

/** A handler that answers with a body of its own (a file, a redirect) returns this. */
export class RawResponse {}

/** The `message` of the route answering the request, recorded by ResponseMessageGuard. */
const MESSAGE = Symbol('response message');
type RoutedRequest = Request & { [MESSAGE]?: string };

/**
 * Records the route's `@ResponseMessage` on the request for the envelope. A guard because guards
 * are the per-route hook Nest runs without rxjs; it never refuses.
 */
@Injectable()
export class ResponseMessageGuard implements CanActivate {
  constructor(private readonly reflector: Reflector) {}

  canActivate(ctx: ExecutionContext): boolean {
    if (ctx.getType() === 'http') {
      ctx.switchToHttp().getRequest<RoutedRequest>()[MESSAGE] =
        this.reflector.get<string>(RESPONSE_MESSAGE, ctx.getHandler()) ?? 'OK';
    }
    return true;
  }
}

/** The success body of §4 for a handler's result. */
export function envelope(message: string, req: Request, result: unknown): unknown {
  if (result instanceof RawResponse) return undefined;
  if (result instanceof Page) {
    const path = req.originalUrl.split('?')[0];
    const meta = {
      ...buildPageMeta(result.total, result.request, path, req.query),
      ...result.extraMeta,
    };
    return { success: true, message, data: result.items, meta };
  }
  return { success: true, message, data: result ?? null };
}

/**
 * Puts the envelope around what a routed handler returns, where Nest hands it to Express, instead
 * of a global interceptor. Error bodies are written by the exception filter and never pass here.
 */
export function installEnvelope(app: INestApplication): void {
  const adapter = app.getHttpAdapter();
  const reply = adapter.reply.bind(adapter) as (
    res: Response,
    body: unknown,
    status?: number,
  ) => unknown;
  adapter.reply = (res: Response, body: unknown, statusCode?: number) => {
    const req = res.req as RoutedRequest;
    const message = req[MESSAGE];
    return reply(res, message === undefined ? body : envelope(message, req, body), statusCode);
  };
}
