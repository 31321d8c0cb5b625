// Errors the domain throws. Each edge (HTTP filter, SMTP reply mapper, worker policy) maps them once.

export interface FieldError {
  field: string;
  rule: string;
  message: string;
}

export abstract class DomainError extends Error {
  abstract readonly code: string;
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

/** A value over a size limit (§16): 413 with code E_VALIDATION_ERROR and the field's `max` rule. */
export class ContentTooLargeError extends ValidationFailedError {
  constructor(field: string, message: string) {
    super([{ field, rule: 'max', message }], message);
  }
}

/** A rule of the domain refuses the change (409). */
export class ConflictError extends DomainError {
  readonly code = 'E_BUSINESS_RULE_VIOLATION';
}

/** A request that is well-formed but not allowed in the resource's state (400). */
export class BadRequestError extends DomainError {
  readonly code = 'E_BAD_REQUEST';
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

export class PayloadTooLargeError extends DomainError {
  readonly code = 'E_PAYLOAD_TOO_LARGE';
  constructor(message = 'Request body is too large') {
    super(message);
  }
}
