// Documents a success body in OpenAPI as the §4 envelope around a response model.
import { applyDecorators, Type } from '@nestjs/common';
import { ApiExtraModels, ApiResponse, getSchemaPath } from '@nestjs/swagger';
import type { ReferenceObject, SchemaObject } from '@nestjs/swagger';

export interface ApiEnvelopeOptions {
  isArray?: boolean;
  /** The model of `meta`, for a route answering a `Page` (PageMetaResponse or one extending it). */
  meta?: Type<unknown>;
  /** The success status when it is not 200 (a POST answers 201 unless it sets @HttpCode). */
  status?: number;
}

/**
 * `{success, message, data}` where data is one `model`, or an array of them with `{isArray}`;
 * with `{meta}`, also `meta`.
 */
export function ApiEnvelope(model: Type<unknown>, opts: ApiEnvelopeOptions = {}) {
  const item = { $ref: getSchemaPath(model) };
  const models = [model];
  const required = ['success', 'message', 'data'];
  const properties: Record<string, SchemaObject | ReferenceObject> = {
    success: { type: 'boolean', enum: [true] },
    message: { type: 'string' },
    data: opts.isArray ? { type: 'array', items: item } : item,
  };
  if (opts.meta) {
    models.push(opts.meta);
    required.push('meta');
    properties.meta = { $ref: getSchemaPath(opts.meta) };
  }
  return applyDecorators(
    ApiExtraModels(...models),
    ApiResponse({ status: opts.status ?? 200, schema: { type: 'object', required, properties } }),
  );
}
