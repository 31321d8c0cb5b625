// The one place an error becomes an HTTP answer (§4). Never a stack trace or SQL in a body.
import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import {
  BadRequestError,
  CampaignNotSendableError,
  ConflictError,
  ContentTooLargeError,
  DomainError,
  ForbiddenError,
  InsufficientCreditsError,
  InsufficientScopeError,
  InvalidCredentialsError,
  NotFoundError,
  PayloadTooLargeError,
  RateLimitedError,
  ServiceUnavailableError,
  SubscriptionRequiredError,
  UnauthorizedAccessError,
  ValidationFailedError,
} from '@app/domain';
import type { Response } from 'express';

// First match wins: a subclass comes before its parent.
const STATUS: [abstract new (...args: never[]) => DomainError, number][] = [
  [ContentTooLargeError, 413],
  [ValidationFailedError, 422],
  [NotFoundError, 404],
  [UnauthorizedAccessError, 401],
  [InvalidCredentialsError, 401],
  [InsufficientScopeError, 403],
  [ForbiddenError, 403],
  [ConflictError, 409],
  [CampaignNotSendableError, 409],
  [BadRequestError, 400],
  [SubscriptionRequiredError, 402],
  [InsufficientCreditsError, 402],
  [RateLimitedError, 429],
  [PayloadTooLargeError, 413],
  [ServiceUnavailableError, 503],
];

const HTTP_CODES: Record<number, string> = {
  400: 'E_BAD_REQUEST',
  401: 'E_UNAUTHORIZED_ACCESS',
  403: 'E_FORBIDDEN',
  404: 'E_ROW_NOT_FOUND',
  405: 'E_METHOD_NOT_ALLOWED',
  413: 'E_PAYLOAD_TOO_LARGE',
  415: 'E_UNSUPPORTED_MEDIA_TYPE',
  422: 'E_VALIDATION_ERROR',
  429: 'E_TOO_MANY_REQUESTS',
  503: 'E_SERVICE_UNAVAILABLE',
};

/**
 * Database and Redis errors that mean a store is unreachable rather than a bug: answer 503, not
 * 500. Redis: ioredis gives up on a command after `maxRetriesPerRequest` reconnection attempts
 * (MaxRetriesPerRequestError) while the server is down, e.g. in the per-key limit of every
 * authenticated route; the client reconnects by itself once the server is back.
 */
function isStoreOutage(err: unknown): boolean {
  const e = err as { code?: string; message?: string; name?: string } | null;
  if (!e) return false;
  if (e.name === 'MaxRetriesPerRequestError') return true;
  // TypeORM releases a transaction's connection as soon as the pg client reports it dead (the
  // server terminating sessions when it shuts down); the transaction's next statement then
  // fails with this error instead of a connection error.
  if (e.name === 'QueryRunnerAlreadyReleasedError') return true;
  if (
    e.code &&
    [
      'ECONNREFUSED',
      'ECONNRESET',
      'ETIMEDOUT',
      '57P01',
      '57P03',
      '08006',
      '08001',
      '08003',
    ].includes(e.code)
  ) {
    return true;
  }
  return /Connection terminated|timeout exceeded when trying to connect|Connection is closed|the database system is|Reached the max retries per request limit|Stream isn't writeable/i.test(
    e.message ?? '',
  );
}

@Catch()
export class GlobalExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger('HttpError');

  catch(exception: unknown, host: ArgumentsHost): void {
    const res = host.switchToHttp().getResponse<Response>();
    if (res.headersSent) return;

    if (exception instanceof DomainError) {
      const status = STATUS.find(([cls]) => exception instanceof cls)?.[1] ?? 500;
      const body: Record<string, unknown> = {
        success: false,
        message: exception.message,
        code: exception.code,
      };
      if (exception instanceof ValidationFailedError) body.errors = exception.errors;
      if (exception instanceof RateLimitedError || exception instanceof ServiceUnavailableError) {
        body.retryAfter = exception.retryAfter;
        res.setHeader('Retry-After', String(exception.retryAfter));
      }
      if (exception instanceof RateLimitedError) {
        for (const [k, v] of Object.entries(exception.headers)) res.setHeader(k, v);
      }
      res.status(status).json(body);
      return;
    }

    if (exception instanceof HttpException) {
      const status = exception.getStatus();
      const message =
        status === 404
          ? 'Route not found'
          : status >= 500
            ? 'Internal server error'
            : exception.message;
      if (status === 429) res.setHeader('Retry-After', res.getHeader('Retry-After') ?? '60');
      res
        .status(status)
        .json({ success: false, message, code: HTTP_CODES[status] ?? 'E_HTTP_ERROR' });
      return;
    }

    if (isStoreOutage(exception)) {
      this.logger.warn({ msg: 'store unavailable', err: (exception as Error).message });
      res.setHeader('Retry-After', '5');
      res.status(503).json({
        success: false,
        message: 'Service temporarily unavailable',
        code: 'E_SERVICE_UNAVAILABLE',
        retryAfter: 5,
      });
      return;
    }

    this.logger.error(
      exception instanceof Error
        ? exception
        : { msg: 'non-error thrown', value: String(exception) },
    );
    res
      .status(500)
      .json({ success: false, message: 'Internal server error', code: 'E_INTERNAL_SERVER_ERROR' });
  }
}
