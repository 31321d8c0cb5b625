// Documents a success body in OpenAPI as the §4 envelope around a response model.
import { applyDecorators, Type } from '@nestjs/common';
import { ApiExtraModels, ApiOkResponse, getSchemaPath } from '@nestjs/swagger';

/** `{success, message, data}` where data is one `model`, or an array of them with `{isArray}`. */
export function ApiEnvelope(model: Type<unknown>, opts: { isArray?: boolean } = {}) {
  const item = { $ref: getSchemaPath(model) };
  return applyDecorators(
    ApiExtraModels(model),
    ApiOkResponse({
      schema: {
        type: 'object',
        required: ['success', 'message', 'data'],
        properties: {
          success: { type: 'boolean', enum: [true] },
          message: { type: 'string' },
          data: opts.isArray ? { type: 'array', items: item } : item,
        },
      },
    }),
  );
}
