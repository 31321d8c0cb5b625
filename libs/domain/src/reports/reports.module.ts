// Read-only reports computed in SQL over the other areas' tables.
import { Module } from '@nestjs/common';
import { RevenueReportService } from './revenue-report.service';

@Module({
  providers: [RevenueReportService],
  exports: [RevenueReportService],
})
export class ReportsModule {}
