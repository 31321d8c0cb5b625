// The OpenAPI document of the api, served at /docs.
import { INestApplication } from '@nestjs/common';
import { DocumentBuilder, OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import { documentErrors, ErrorResponse, FieldErrorResponse } from './error.response';

/** The OpenAPI document of the app's routes (also written to docs/openapi.json by the build). */
export function buildOpenApiDocument(app: INestApplication): OpenAPIObject {
  const config = new DocumentBuilder()
    .setTitle('Messaging Platform API')
    .setDescription(
      'Contacts, segments, imports, email sending, message logs, revenue attribution and webhooks. ' +
        'Each operation lists the scopes it requires in `x-required-scopes`.',
    )
    .setVersion('1.0.0')
    .addApiKey({ type: 'apiKey', in: 'header', name: 'X-API-Key' }, 'apiKey')
    .addBearerAuth(
      { type: 'http', scheme: 'bearer', description: 'bk_ API key or at_ access token' },
      'bearer',
    )
    .build();
  return documentErrors(
    SwaggerModule.createDocument(app, config, { extraModels: [ErrorResponse, FieldErrorResponse] }),
  );
}

export function installOpenApi(app: INestApplication): void {
  SwaggerModule.setup('docs', app, buildOpenApiDocument(app), { jsonDocumentUrl: 'docs/json' });
}
