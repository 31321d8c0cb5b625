// Authenticates every non-public route (API key, bearer token, or the dashboard's session cookie),
// applies the per-key rate limit, then checks scopes.
import { CanActivate, ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import {
  APP_CONFIG,
  AuthContext,
  AuthFailureLimiter,
  CredentialService,
  InsufficientScopeError,
  KeyRateLimiter,
  RateLimitedError,
  requestContext,
  Scope,
  UnauthorizedAccessError,
} from '@app/domain';
import type { AppConfig } from '@app/domain';
import type { Response } from 'express';
import { clientIp, COUNTS_AUTH_FAILURES } from '../messaging/send-ip-limits';
import { AuthedRequest, PUBLIC_ROUTE, REQUIRED_SCOPES } from './decorators';
import { SessionCookie } from './session-cookie';

@Injectable()
export class AuthGuard implements CanActivate {
  private readonly sessionCookie: SessionCookie;

  constructor(
    private readonly reflector: Reflector,
    private readonly credentials: CredentialService,
    private readonly limiter: KeyRateLimiter,
    private readonly authFailures: AuthFailureLimiter,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.sessionCookie = new SessionCookie(config);
  }

  async canActivate(ctx: ExecutionContext): Promise<boolean> {
    const targets = [ctx.getHandler(), ctx.getClass()];
    if (this.reflector.getAllAndOverride<boolean>(PUBLIC_ROUTE, targets)) return true;
    const req = ctx.switchToHttp().getRequest<AuthedRequest>();
    const res = ctx.switchToHttp().getResponse<Response>();

    let auth: AuthContext;
    try {
      auth = await this.credentials.authenticate(this.sessionCookie.presented(req));
    } catch (err) {
      // Send API (Authentication rule 7): failures count per client IP; past the limit, 429.
      if (
        err instanceof UnauthorizedAccessError &&
        this.reflector.getAllAndOverride<boolean>(COUNTS_AUTH_FAILURES, targets)
      ) {
        const state = await this.authFailures.recordFailure(clientIp(req)).catch(() => null);
        if (state?.blocked) throw AuthFailureLimiter.error(state);
      }
      throw err;
    }
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
