import { INestApplication } from '@nestjs/common';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';

export function installOpenApi(app: INestApplication): void {
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
  const document = SwaggerModule.createDocument(app, config);
  SwaggerModule.setup('docs', app, document, { jsonDocumentUrl: 'docs/json' });
}
