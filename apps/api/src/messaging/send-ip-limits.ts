// Per-client-IP limits of the email send API (spec Limits › Email send API, §8): every request to
// the send routes is counted (1,000/min any request, 30/min POST /api/v1/send), the tightest
// limit is reported in draft-7 RateLimit headers, and an IP with too many failed authentications
// is refused until its window ends. The failure counter is shared with the SMTP relay; the
// limiters count an IPv6 client by its /64 (ipLimitKey), the allow-list matches the address.
import { Inject, Injectable, Logger, NestMiddleware, SetMetadata } from '@nestjs/common';
import {
  APP_CONFIG,
  AuthFailureLimiter,
  DomainError,
  IpPolicy,
  IpPolicyState,
  IpRequestLimiter,
  normaliseIp,
  RateLimitedError,
  TOO_MANY_REQUESTS_MESSAGE,
} from '@app/domain';
import type { AppConfig } from '@app/domain';
import type { NextFunction, Request, Response } from 'express';
import { BlockList, isIP } from 'node:net';

export const SEND_IP_POLICIES = {
  any: { name: 'any', limit: 1000, windowSeconds: 60 },
  send: { name: 'send', limit: 30, windowSeconds: 60 },
} satisfies Record<string, IpPolicy>;

/** Metadata: authentication failures on this route count toward the per-IP failure limit. */
export const COUNTS_AUTH_FAILURES = 'route:countsAuthFailures';
export const CountsAuthFailures = () => SetMetadata(COUNTS_AUTH_FAILURES, true);

export function clientIp(req: Request): string {
  return normaliseIp(req.ip ?? req.socket.remoteAddress);
}

export function allowList(entries: string[]): BlockList {
  const list = new BlockList();
  for (const entry of entries) {
    const [addr, bits] = entry.split('/');
    const family = isIP(addr) === 6 ? 'ipv6' : 'ipv4';
    if (bits === undefined) list.addAddress(addr, family);
    else list.addSubnet(addr, Number(bits), family);
  }
  return list;
}

/** The limit closest to exhaustion is what the headers describe. */
function tightest(states: IpPolicyState[]): IpPolicyState {
  return states.reduce((a, b) =>
    b.remaining < a.remaining || (b.remaining === a.remaining && b.policy.limit < a.policy.limit)
      ? b
      : a,
  );
}

@Injectable()
export class SendIpLimitsMiddleware implements NestMiddleware {
  private readonly logger = new Logger(SendIpLimitsMiddleware.name);
  private readonly allowed: BlockList;

  constructor(
    private readonly requests: IpRequestLimiter,
    private readonly failures: AuthFailureLimiter,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.allowed = allowList(config.sendIpAllowlist);
  }

  private isAllowed(ip: string): boolean {
    const family = isIP(ip);
    return family !== 0 && this.allowed.check(ip, family === 6 ? 'ipv6' : 'ipv4');
  }

  async use(req: Request, res: Response, next: NextFunction): Promise<void> {
    const ip = clientIp(req);
    let refusal: DomainError | undefined;
    try {
      if (!this.isAllowed(ip)) {
        const policies: IpPolicy[] = [SEND_IP_POLICIES.any];
        if (req.method === 'POST') policies.push(SEND_IP_POLICIES.send);
        const states = await this.requests.hit(ip, policies);
        const shown = tightest(states);
        res.setHeader('RateLimit-Policy', `${shown.policy.limit};w=${shown.policy.windowSeconds}`);
        res.setHeader(
          'RateLimit',
          `limit=${shown.policy.limit}, remaining=${shown.remaining}, reset=${shown.resetSeconds}`,
        );
        const exceeded = states.filter((s) => s.exceeded);
        if (exceeded.length) {
          const wait = Math.max(...exceeded.map((s) => s.resetSeconds));
          refusal = new RateLimitedError(TOO_MANY_REQUESTS_MESSAGE, wait);
        }
      }
      const failures = await this.failures.state(ip);
      if (failures.blocked) refusal = AuthFailureLimiter.error(failures);
    } catch (err) {
      // Fail open: an outage of the counters must not stop the send API.
      this.logger.warn({ msg: 'per-IP limits unavailable', err: (err as Error).message });
    }
    // Thrown, not passed to next(): Nest hands a middleware's exception to the global filter.
    if (refusal) throw refusal;
    next();
  }
}
