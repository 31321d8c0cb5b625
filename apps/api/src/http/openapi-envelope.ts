// Documents a success body in OpenAPI as the §4 envelope around a response model.
import { applyDecorators, Type } from '@nestjs/common';
import { ApiExtraModels, ApiResponse, getSchemaPath } from '@nestjs/swagger';

export interface EnvelopeOptions {
  /** `data` is an array of the model. */
  isArray?: boolean;
  /**
   * The status the route answers with (default 200): 201 for a POST without `@HttpCode`, 202 for
   * an accepted send. It must be the route's own, or the build's inferred raw body stays beside it.
   */
  status?: number;
  /** The model of `meta` next to `data` (a paged list's `PageMetaResponse`). */
  meta?: Type<unknown>;
  description?: string;
}

const ENVELOPE_FIELDS = {
  success: { type: 'boolean', enum: [true] },
  message: { type: 'string' },
};

/** `{success, message, data}` where data is one `model`, or an array of them with `{isArray}`. */
export function ApiEnvelope(model: Type<unknown>, opts: EnvelopeOptions = {}) {
  const item = { $ref: getSchemaPath(model) };
  const required = ['success', 'message', 'data'];
  const properties: Record<string, object> = {
    ...ENVELOPE_FIELDS,
    data: opts.isArray ? { type: 'array', items: item } : item,
  };
  if (opts.meta) {
    required.push('meta');
    properties.meta = { $ref: getSchemaPath(opts.meta) };
  }
  return applyDecorators(
    ApiExtraModels(model, ...(opts.meta ? [opts.meta] : [])),
    ApiResponse({
      status: opts.status ?? 200,
      description: opts.description,
      schema: { type: 'object', required, properties },
    }),
  );
}

/** `{success, message, data: null}`: a route that answers no resource (a delete, a logout). */
export function ApiEnvelopeNull(opts: Pick<EnvelopeOptions, 'status' | 'description'> = {}) {
  return ApiResponse({
    status: opts.status ?? 200,
    description: opts.description,
    schema: {
      type: 'object',
      required: ['success', 'message', 'data'],
      // OpenAPI 3.0 has no null type: a value that may only be null.
      properties: { ...ENVELOPE_FIELDS, data: { nullable: true, enum: [null] } },
    },
  });
}
