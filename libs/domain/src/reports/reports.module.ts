// Read-only reports computed in SQL over the other areas' tables.
import { Module } from '@nestjs/common';
import { RevenueReportRepository } from './revenue-report.repository';
import { RevenueReportService } from './revenue-report.service';

@Module({
  providers: [RevenueReportRepository, RevenueReportService],
  exports: [RevenueReportService],
})
export class ReportsModule {}
