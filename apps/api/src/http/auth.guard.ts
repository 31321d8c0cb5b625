// Authenticates every non-public route, applies the per-key rate limit, then checks scopes.
import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import {
  CredentialService,
  InsufficientScopeError,
  KeyRateLimiter,
  RateLimitedError,
  requestContext,
  Scope,
} from '@app/domain';
import type { Response } from 'express';
import { AuthedRequest, PUBLIC_ROUTE, REQUIRED_SCOPES } from './decorators';

function header(req: AuthedRequest, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

@Injectable()
export class AuthGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly credentials: CredentialService,
    private readonly limiter: KeyRateLimiter,
  ) {}

  async canActivate(ctx: ExecutionContext): Promise<boolean> {
    const targets = [ctx.getHandler(), ctx.getClass()];
    if (this.reflector.getAllAndOverride<boolean>(PUBLIC_ROUTE, targets)) return true;
    const req = ctx.switchToHttp().getRequest<AuthedRequest>();
    const res = ctx.switchToHttp().getResponse<Response>();

    const auth = await this.credentials.authenticate({
      apiKey: header(req, 'x-api-key'),
      authorization: header(req, 'authorization'),
      organizationId: header(req, 'x-organization-id'),
    });
    req.auth = auth;
    const store = requestContext.getStore();
    if (store) store.organizationId = auth.organizationId;

    if (auth.principal.type === 'api_key') {
      const p = auth.principal;
      const decision = await this.limiter.consume(p.keyId, p.rateLimitPerMinute, p.rateLimitPerDay);
      res.setHeader('X-RateLimit-Limit', String(decision.limit));
      res.setHeader('X-RateLimit-Remaining', String(decision.remaining));
      if (!decision.allowed) {
        throw new RateLimitedError(
          'Too many requests, please try again later.',
          decision.retryAfter!,
          {
            'X-RateLimit-Reset': decision.resetAt!.toISOString(),
          },
        );
      }
    }

    const required = this.reflector.getAllAndOverride<Scope[]>(REQUIRED_SCOPES, targets) ?? [];
    const missing = required.filter((s) => !auth.scopes.has(s));
    if (missing.length) throw new InsufficientScopeError(missing);
    return true;
  }
}
