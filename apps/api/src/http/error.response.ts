// The error envelope (§4) every operation may answer with, documented once as the `default`
// response of each operation.
import { ApiProperty } from '@nestjs/swagger';
import { ERROR_CODES } from '@app/domain';
import type { ErrorCode, FieldError } from '@app/domain';
import type { OpenAPIObject } from '@nestjs/swagger';

/** One invalid field of a 422. */
export class FieldErrorResponse implements FieldError {
  field: string;

  /** The rule the value broke (e.g. `required`, `email`, `maxLength`). */
  rule: string;

  message: string;
}

export class ErrorResponse {
  @ApiProperty({ enum: [false] })
  success: false;

  message: string;

  @ApiProperty({ enum: ERROR_CODES, enumName: 'ErrorCode' })
  code: ErrorCode;

  /** The invalid fields of a 422. */
  errors?: FieldErrorResponse[];

  /** Seconds to wait before retrying a 429 or a 503 (also in the Retry-After header). */
  retryAfter?: number;
}

/** Adds the error envelope as the `default` response of every operation of the document. */
export function documentErrors(document: OpenAPIObject): OpenAPIObject {
  const schema = { $ref: '#/components/schemas/ErrorResponse' };
  for (const operations of Object.values(document.paths)) {
    for (const op of Object.values(operations)) {
      if (!op || typeof op !== 'object' || !('responses' in op)) continue;
      op.responses.default ??= {
        description: 'The error envelope: a 4xx or 5xx status with its code',
        content: { 'application/json': { schema } },
      };
    }
  }
  return document;
}
