// HTTP route that records a conversion (§11).
import { Body, Controller, Post, Res } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { ConversionService } from '@app/domain';
import type { Response } from 'express';
import { OrgId, RequireScopes, ResponseMessage } from '../http/decorators';
import { ApiEnvelope } from '../http/openapi-envelope';
import { RecordConversionDto } from './campaigns.dto';
import { ConversionResponse, toConversionResponse } from './conversion.response';

@ApiTags('conversions')
@Controller('api/v1/user/conversions')
export class ConversionsController {
  constructor(private readonly conversions: ConversionService) {}

  /** 201 when recorded; 200 with the stored conversion when the orderId was already recorded. */
  @Post()
  @RequireScopes('analytics:write')
  @ResponseMessage('Conversion recorded successfully')
  @ApiEnvelope(ConversionResponse, { status: 201, description: 'Recorded' })
  @ApiEnvelope(ConversionResponse, { description: 'The orderId was already recorded' })
  async record(
    @OrgId() orgId: OrgId,
    @Body() dto: RecordConversionDto,
    @Res({ passthrough: true }) res: Response,
  ) {
    const { conversion, created } = await this.conversions.record(orgId, dto);
    res.status(created ? 201 : 200);
    return toConversionResponse(conversion);
  }
}
