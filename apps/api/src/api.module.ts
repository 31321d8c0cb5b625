// The HTTP transport: controllers over libs/domain, with one guard, one filter, one envelope.
import { Module } from '@nestjs/common';
import { APP_FILTER, APP_GUARD, APP_INTERCEPTOR, APP_PIPE } from '@nestjs/core';
import {
  AppConfigModule,
  CampaignsModule,
  DatabaseModule,
  LimitsModule,
  QueuesModule,
  RedisModule,
  SegmentsModule,
  ReportsModule,
  TenancyModule,
} from '@app/domain';
import { CampaignsController } from './campaigns/campaigns.controller';
import { ConversionsController } from './campaigns/conversions.controller';
import { HealthController } from './health/health.controller';
import { AuthGuard } from './http/auth.guard';
import { EnvelopeInterceptor } from './http/envelope.interceptor';
import { GlobalExceptionFilter } from './http/exception.filter';
import { createValidationPipe } from './http/validation';
import { SegmentsController } from './segments/segments.controller';
import { RevenueReportController } from './reports/revenue-report.controller';
import { ApiKeysController } from './tenancy/api-keys.controller';
import { AuthController } from './tenancy/auth.controller';
import { OrganizationController } from './tenancy/organization.controller';

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
  ],
  providers: [
    { provide: APP_GUARD, useClass: AuthGuard },
    { provide: APP_FILTER, useClass: GlobalExceptionFilter },
    { provide: APP_INTERCEPTOR, useClass: EnvelopeInterceptor },
    { provide: APP_PIPE, useFactory: createValidationPipe },
  ],
})
export class ApiModule {}
