// The one place an error becomes an HTTP answer (§4). Never a stack trace or SQL in a body.
import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import {
  CampaignNotSendableError,
  ConflictError,
  DomainError,
  ErrorCode,
  ForbiddenError,
  InsufficientCreditsError,
  InsufficientScopeError,
  InvalidCredentialsError,
  InvalidStateError,
  NotFoundError,
  PayloadTooLargeError,
  RateLimitedError,
  ServiceUnavailableError,
  SubscriptionRequiredError,
  UnauthorizedAccessError,
  ValidationFailedError,
} from '@app/domain/errors/domain-errors';
import { isStoreOutage } from '@app/domain/errors/store-outage';
import type { Response } from 'express';
import type { ErrorResponse } from './error.response';

/** First match wins: a subclass comes before its base. */
const STATUS: [abstract new (...args: never[]) => DomainError, number][] = [
  [PayloadTooLargeError, 413],
  [ValidationFailedError, 422],
  [NotFoundError, 404],
  [UnauthorizedAccessError, 401],
  [InvalidCredentialsError, 401],
  [InsufficientScopeError, 403],
  [ForbiddenError, 403],
  [ConflictError, 409],
  [CampaignNotSendableError, 409],
  [InvalidStateError, 400],
  [SubscriptionRequiredError, 402],
  [InsufficientCreditsError, 402],
  [RateLimitedError, 429],
  [ServiceUnavailableError, 503],
];

/**
 * The domain error an HttpException of Nest or Express stands for, so that it is answered with a
 * code of the spec's list (§16): an unmatched route (or method) is a missing row; a path Express
 * cannot decode, and any other 4xx, is a 422. Null for a 5xx.
 */
export function fromHttpException(exception: HttpException): DomainError | null {
  const status = exception.getStatus();
  switch (status) {
    case 404:
    case 405:
      return new NotFoundError('Route');
    case 401:
      return new UnauthorizedAccessError();
    case 403:
      return new ForbiddenError('Forbidden');
    case 413:
      return new PayloadTooLargeError();
    case 429:
      return new RateLimitedError('Too many requests, please try again later.', 60);
    case 503:
      return new ServiceUnavailableError();
  }
  if (status >= 500) return null;
  // Express refuses a path parameter whose percent-encoding is not UTF-8 ("Failed to decode param").
  const field = /decode param/i.test(exception.message) ? 'path' : 'request';
  return ValidationFailedError.field(field, 'type', exception.message);
}

@Catch()
export class GlobalExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger('HttpError');

  catch(exception: unknown, host: ArgumentsHost): void {
    const res = host.switchToHttp().getResponse<Response>();
    if (res.headersSent) return;

    const error = exception instanceof HttpException ? fromHttpException(exception) : exception;
    if (error instanceof DomainError) {
      const status = STATUS.find(([cls]) => error instanceof cls)?.[1] ?? 500;
      const body: ErrorResponse = {
        success: false,
        message: error.message,
        code: error.code,
      };
      if (error instanceof ValidationFailedError) body.errors = error.errors;
      if (error instanceof RateLimitedError || error instanceof ServiceUnavailableError) {
        body.retryAfter = error.retryAfter;
        res.setHeader('Retry-After', String(error.retryAfter));
      }
      if (error instanceof RateLimitedError) {
        for (const [k, v] of Object.entries(error.headers)) res.setHeader(k, v);
      }
      res.status(status).json(body);
      return;
    }

    if (isStoreOutage(exception)) {
      this.logger.warn({ msg: 'store unavailable', err: (exception as Error).message });
      res.setHeader('Retry-After', '5');
      res.status(503).json({
        success: false,
        message: 'Service temporarily unavailable',
        code: 'E_SERVICE_UNAVAILABLE' satisfies ErrorCode,
        retryAfter: 5,
      });
      return;
    }

    this.logger.error(
      exception instanceof Error
        ? exception
        : { msg: 'non-error thrown', value: String(exception) },
    );
    const code: ErrorCode = 'E_INTERNAL_SERVER_ERROR';
    res.status(500).json({ success: false, message: 'Internal server error', code });
  }
}
