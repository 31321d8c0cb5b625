// The HTTP transport: controllers over libs/domain, with one guard, one filter, one envelope.
import { Module } from '@nestjs/common';
import { APP_FILTER, APP_GUARD, APP_PIPE } from '@nestjs/core';
import {
  AppConfigModule,
  CampaignsModule,
  ContactsModule,
  DatabaseModule,
  ImportsModule,
  LimitsModule,
  QueuesModule,
  RedisModule,
  SegmentsModule,
  ReportsModule,
  TenancyModule,
  WebhooksModule,
} from '@app/domain';
import { CampaignsController } from './campaigns/campaigns.controller';
import { ConversionsController } from './campaigns/conversions.controller';
import { ContactChannelsController } from './contacts/contact-channels.controller';
import { ContactListsController } from './contacts/contact-lists.controller';
import { ContactTagsController } from './contacts/contact-tags.controller';
import { ContactsController } from './contacts/contacts.controller';
import { HealthController } from './health/health.controller';
import { ContactImportsController } from './imports/contact-imports.controller';
import { AuthGuard } from './http/auth.guard';
import { DeferredBodyGuard } from './http/body-parsers';
import { ResponseMessageGuard } from './http/envelope';
import { GlobalExceptionFilter } from './http/exception.filter';
import { createValidationPipe } from './http/validation';
import { SegmentsController } from './segments/segments.controller';
import { SendingDomainsHttpModule } from './sending-domains/sending-domains-http.module';
import { ChannelsHttpModule } from './channels/channels-http.module';
import { RevenueReportController } from './reports/revenue-report.controller';
import { MessagingHttpModule } from './messaging/messaging-http.module';
import { UnsubscribeHttpModule } from './unsubscribe/unsubscribe-http.module';
import { ApiKeysController } from './tenancy/api-keys.controller';
import { AuthController } from './tenancy/auth.controller';
import { OrganizationController } from './tenancy/organization.controller';
import { WebhookDeliveriesController } from './webhooks/webhook-deliveries.controller';
import { WebhookEndpointsController } from './webhooks/webhook-endpoints.controller';

@Module({
  imports: [
    AppConfigModule,
    DatabaseModule.forRoot(),
    RedisModule,
    QueuesModule,
    LimitsModule,
    TenancyModule,
    SegmentsModule,
    CampaignsModule,
    ReportsModule,
    ContactsModule,
    WebhooksModule,
    MessagingHttpModule,
    UnsubscribeHttpModule,
    ImportsModule,
    SendingDomainsHttpModule,
    ChannelsHttpModule,
  ],
  controllers: [
    HealthController,
    AuthController,
    ApiKeysController,
    OrganizationController,
    SegmentsController,
    CampaignsController,
    ConversionsController,
    RevenueReportController,
    ContactsController,
    ContactChannelsController,
    ContactTagsController,
    ContactListsController,
    WebhookEndpointsController,
    WebhookDeliveriesController,
    ContactImportsController,
  ],
  providers: [
    // The success envelope is put on in the HTTP adapter (configureApp → installEnvelope), not by
    // an interceptor; this guard only records each route's message for it.
    { provide: APP_GUARD, useClass: ResponseMessageGuard },
    { provide: APP_GUARD, useClass: AuthGuard },
    // Last: a body over 64 KB is read only once the guards before it passed (§16).
    { provide: APP_GUARD, useClass: DeferredBodyGuard },
    { provide: APP_FILTER, useClass: GlobalExceptionFilter },
    { provide: APP_PIPE, useFactory: createValidationPipe },
  ],
})
export class ApiModule {}
