// HTTP route of the revenue attribution report (§11).
import { Controller, Get, Query } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { RevenueReportService } from '@app/domain';
import { OrgId, RequireScopes, ResponseMessage } from '../http/decorators';
import { ApiEnvelope } from '../http/openapi-envelope';
import { RevenueReportQueryDto } from './revenue-report.dto';
import { RevenueReportResponse, toRevenueReportResponse } from './revenue-report.response';

@ApiTags('reports')
@Controller('api/v1/user/reports')
export class RevenueReportController {
  constructor(private readonly reports: RevenueReportService) {}

  @Get('revenue-attribution')
  @RequireScopes('analytics:read')
  @ResponseMessage('Revenue attribution report fetched successfully')
  @ApiEnvelope(RevenueReportResponse)
  async revenueAttribution(@OrgId() orgId: OrgId, @Query() q: RevenueReportQueryDto) {
    return toRevenueReportResponse(await this.reports.report(orgId, q));
  }
}
