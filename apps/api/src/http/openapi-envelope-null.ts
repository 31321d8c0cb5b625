// Documents in OpenAPI a success body whose `data` is always null (a delete).
import { applyDecorators } from '@nestjs/common';
import { ApiOkResponse } from '@nestjs/swagger';

/** `{success, message, data: null}`. */
export function ApiEnvelopeNull() {
  return applyDecorators(
    ApiOkResponse({
      schema: {
        type: 'object',
        required: ['success', 'message', 'data'],
        properties: {
          success: { type: 'boolean', enum: [true] },
          message: { type: 'string' },
          data: { nullable: true, enum: [null] },
        },
      },
    }),
  );
}
