// Wraps every success in the envelope of §4; a Page becomes data + meta.
import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { buildPageMeta, Page } from '@app/domain';
import type { Request } from 'express';
import { map, Observable } from 'rxjs';
import { RESPONSE_MESSAGE } from './decorators';

/** A handler that answers with a body of its own (a file, a redirect) returns this. */
export class RawResponse {}

@Injectable()
export class EnvelopeInterceptor implements NestInterceptor {
  constructor(private readonly reflector: Reflector) {}

  intercept(ctx: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (ctx.getType() !== 'http') return next.handle();
    const message = this.reflector.get<string>(RESPONSE_MESSAGE, ctx.getHandler()) ?? 'OK';
    const req = ctx.switchToHttp().getRequest<Request>();
    return next.handle().pipe(
      map((result: unknown) => {
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
      }),
    );
  }
}
