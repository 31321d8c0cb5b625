// Errors the domain throws, and the only codes an error answer may carry. Each edge (HTTP filter,
// SMTP reply mapper, worker policy) maps them once.

/**
 * Every `code` of an error answer: the spec's list, plus 500 `E_INTERNAL_SERVER_ERROR` (§4) and
 * 503 `E_SERVICE_UNAVAILABLE` (§12). Typed so that no other code compiles (§16).
 */
export const ERROR_CODES = [
  'E_VALIDATION_ERROR',
  'E_UNAUTHORIZED_ACCESS',
  'E_UNAUTHORIZED',
  'E_FORBIDDEN',
  'E_INSUFFICIENT_SCOPE',
  'E_ROW_NOT_FOUND',
  'E_TOO_MANY_REQUESTS',
  'E_BUSINESS_RULE_VIOLATION',
  'E_CAMPAIGN_NOT_SENDABLE',
  'INSUFFICIENT_CREDITS',
  'SUBSCRIPTION_REQUIRED',
  'E_INTERNAL_SERVER_ERROR',
  'E_SERVICE_UNAVAILABLE',
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

export interface FieldError {
  field: string;
  rule: string;
  message: string;
}

export abstract class DomainError extends Error {
  abstract readonly code: ErrorCode;
}

export class NotFoundError extends DomainError {
  readonly code = 'E_ROW_NOT_FOUND';
  constructor(resource = 'Resource') {
    super(`${resource} not found`);
  }
}

export class ValidationFailedError extends DomainError {
  readonly code = 'E_VALIDATION_ERROR';
  constructor(
    readonly errors: FieldError[],
    message = 'Validation failed',
  ) {
    super(message);
  }
  static field(field: string, rule: string, message: string): ValidationFailedError {
    return new ValidationFailedError([{ field, rule, message }]);
  }
}

/** A rule of the domain refuses the change (409). */
export class ConflictError extends DomainError {
  readonly code = 'E_BUSINESS_RULE_VIOLATION';
}

/**
 * A rule of the domain refuses the request in the resource's current state where the spec answers
 * 400, not 409: a resend of a delivered webhook delivery (§16).
 */
export class InvalidStateError extends DomainError {
  readonly code = 'E_BUSINESS_RULE_VIOLATION';
}

export class CampaignNotSendableError extends DomainError {
  readonly code = 'E_CAMPAIGN_NOT_SENDABLE';
}

export class SubscriptionRequiredError extends DomainError {
  readonly code = 'SUBSCRIPTION_REQUIRED';
  constructor(message = 'An active subscription is required') {
    super(message);
  }
}

export class InsufficientCreditsError extends DomainError {
  readonly code = 'INSUFFICIENT_CREDITS';
}

/** Credential missing, malformed, revoked or expired. */
export class UnauthorizedAccessError extends DomainError {
  readonly code = 'E_UNAUTHORIZED_ACCESS';
  constructor(message = 'Unauthorized access') {
    super(message);
  }
}

/** Wrong email or password at login. */
export class InvalidCredentialsError extends DomainError {
  readonly code = 'E_UNAUTHORIZED';
  constructor(message = 'Invalid email or password') {
    super(message);
  }
}

export class ForbiddenError extends DomainError {
  readonly code = 'E_FORBIDDEN';
}

export class InsufficientScopeError extends DomainError {
  readonly code = 'E_INSUFFICIENT_SCOPE';
  constructor(readonly required: string[]) {
    super(`Missing required scope: ${required.join(', ')}`);
  }
}

export class RateLimitedError extends DomainError {
  readonly code = 'E_TOO_MANY_REQUESTS';
  constructor(
    message: string,
    /** Seconds until the refusing window has room again. */
    readonly retryAfter: number,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

export class ServiceUnavailableError extends DomainError {
  readonly code = 'E_SERVICE_UNAVAILABLE';
  constructor(
    message = 'Service temporarily unavailable',
    readonly retryAfter = 5,
  ) {
    super(message);
  }
}

/** A body (or an uploaded file) over its size limit: a 413 naming the field with rule max (§16). */
export class PayloadTooLargeError extends ValidationFailedError {
  constructor(message = 'Request body is too large', field = 'body') {
    super([{ field, rule: 'max', message }], message);
  }
}
