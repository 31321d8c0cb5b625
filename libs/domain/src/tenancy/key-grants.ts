// What an API key holding `keys:manage` may grant (§16): never more than it holds.
import { ForbiddenError } from '../errors/domain-errors';
import type { Scope } from './scopes';

/** The part of a key the rules compare. */
export interface KeyGrant {
  id: string;
  scopes: Scope[];
  rateLimitPerMinute: number;
  rateLimitPerDay: number | null;
  expiresAt: Date | null;
}

export interface GrantRequest {
  scopes?: Scope[];
  rateLimitPerMinute?: number;
  rateLimitPerDay?: number | null;
  expiresAt?: Date | null;
}

/** A new key's per-minute limit when none is given (§3). */
export const DEFAULT_PER_MINUTE = 300;

// null is "no cap" / "never expires": the most generous value of each.
const perDayWithin = (v: number | null, bound: number | null) =>
  bound === null || (v !== null && v <= bound);
const expiryWithin = (v: Date | null, bound: Date | null) =>
  bound === null || (v !== null && v.getTime() <= bound.getTime());

function assertScopesHeld(caller: KeyGrant, scopes: Scope[]): void {
  const held = new Set(caller.scopes);
  const missing = scopes.filter((s) => !held.has(s));
  if (missing.length) {
    throw new ForbiddenError(
      `An API key cannot grant scopes it does not hold: ${missing.join(', ')}`,
    );
  }
}

function refuseLimit(field: string, bound = "its own value or the key's current one"): never {
  throw new ForbiddenError(`An API key cannot set ${field} beyond ${bound}`);
}

/**
 * A key created by `caller`: its scopes must be held by the caller and its limits within the
 * caller's. Limits left out are bounded by the caller's (the default 300 per minute at most).
 */
export function grantForNewKey(
  caller: KeyGrant,
  request: GrantRequest & { scopes: Scope[] },
): Required<GrantRequest> {
  assertScopesHeld(caller, request.scopes);
  const perMinute =
    request.rateLimitPerMinute ?? Math.min(DEFAULT_PER_MINUTE, caller.rateLimitPerMinute);
  const perDay =
    request.rateLimitPerDay === undefined ? caller.rateLimitPerDay : request.rateLimitPerDay;
  const expiresAt = request.expiresAt === undefined ? caller.expiresAt : request.expiresAt;
  const own = 'its own value';
  if (perMinute > caller.rateLimitPerMinute) refuseLimit('rateLimitPerMinute', own);
  if (!perDayWithin(perDay, caller.rateLimitPerDay)) refuseLimit('rateLimitPerDay', own);
  if (!expiryWithin(expiresAt, caller.expiresAt)) refuseLimit('expiresAt', own);
  return {
    scopes: request.scopes,
    rateLimitPerMinute: perMinute,
    rateLimitPerDay: perDay,
    expiresAt,
  };
}

/**
 * A change of `target` by `caller` (possibly the same key). A key manages only keys within its
 * own scopes, and the key after the change may carry only scopes the caller holds; each limit the
 * change sets must stay within the caller's own value or the target's current one, so a key can
 * always lower a limit, never raise one above both. For its own key that means: no raise of its
 * limits, no later expiry, no scope it lacks.
 */
export function assertChangeAllowed(
  caller: KeyGrant,
  target: KeyGrant,
  change: GrantRequest,
): void {
  assertManages(caller, target, 'change');
  if (change.scopes) assertScopesHeld(caller, change.scopes);
  const perMinute = change.rateLimitPerMinute;
  if (
    perMinute !== undefined &&
    perMinute > Math.max(caller.rateLimitPerMinute, target.rateLimitPerMinute)
  ) {
    refuseLimit('rateLimitPerMinute');
  }
  const perDay = change.rateLimitPerDay;
  if (
    perDay !== undefined &&
    !perDayWithin(perDay, caller.rateLimitPerDay) &&
    !perDayWithin(perDay, target.rateLimitPerDay)
  ) {
    refuseLimit('rateLimitPerDay');
  }
  const expiresAt = change.expiresAt;
  if (
    expiresAt !== undefined &&
    !expiryWithin(expiresAt, caller.expiresAt) &&
    !expiryWithin(expiresAt, target.expiresAt)
  ) {
    refuseLimit('expiresAt');
  }
}

/** Revoking grants nothing, but a key manages only itself and keys within its own scopes. */
export function assertRevokeAllowed(caller: KeyGrant, target: KeyGrant): void {
  assertManages(caller, target, 'revoke');
}

function assertManages(caller: KeyGrant, target: KeyGrant, verb: string): void {
  if (caller.id === target.id) return;
  const held = new Set(caller.scopes);
  if (target.scopes.some((s) => !held.has(s))) {
    throw new ForbiddenError(`An API key cannot ${verb} a key holding scopes it does not hold`);
  }
}
