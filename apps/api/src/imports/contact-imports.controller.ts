// HTTP routes of contact imports (§7).
import {
  Body,
  Controller,
  Delete,
  Get,
  HttpCode,
  Param,
  Post,
  Query,
  Res,
  UploadedFile,
  UseInterceptors,
} from '@nestjs/common';
import { ApiBody, ApiConsumes, ApiOkResponse, ApiProduces, ApiTags } from '@nestjs/swagger';
import { ImportsService } from '@app/domain';
import type { Response } from 'express';
import { OrgId, RequireScopes, ResponseMessage } from '../http/decorators';
import { RawResponse } from '../http/envelope';
import { ApiEnvelope, ApiEnvelopeNull } from '../http/openapi-envelope';
import { PageMetaResponse } from '../http/page-meta.response';
import { uuidParam } from '../http/params';
import { PageQueryDto } from '../http/page-query.dto';
import {
  ContactImportResponse,
  ContactImportResultResponse,
  ContactImportUploadResponse,
  toContactImportResponse,
  toContactImportResultResponse,
  toContactImportUploadResponse,
} from './contact-import.response';
import { StartImportDto } from './contact-imports.dto';
import { CsvUploadInterceptor } from './csv-upload.interceptor';
import type { ReceivedCsv } from './csv-upload.interceptor';

@ApiTags('contact-imports')
@Controller('api/v1/user/contact-imports')
export class ContactImportsController {
  constructor(private readonly imports: ImportsService) {}

  /**
   * Uploads a CSV (multipart field `file`, up to 200 MB, within the organization's import storage
   * quota): an `uploaded` draft and a preview.
   */
  @Post()
  @RequireScopes('contacts:write')
  @UseInterceptors(CsvUploadInterceptor)
  @ApiConsumes('multipart/form-data')
  @ApiBody({
    schema: { type: 'object', properties: { file: { type: 'string', format: 'binary' } } },
  })
  @ResponseMessage('File uploaded successfully')
  @ApiEnvelope(ContactImportUploadResponse, { status: 201 })
  async upload(@OrgId() orgId: OrgId, @UploadedFile() file: ReceivedCsv) {
    const out = await this.imports.createFromUpload(orgId, {
      path: file.path,
      bytes: file.size,
      reservationId: file.reservationId,
      originalName: file.originalname,
    });
    return toContactImportUploadResponse(out);
  }

  /** Imports newest first; uploaded drafts are not listed. */
  @Get()
  @RequireScopes('contacts:read')
  @ResponseMessage('Imports fetched successfully')
  @ApiEnvelope(ContactImportResponse, { isArray: true, meta: PageMetaResponse })
  async list(@OrgId() orgId: OrgId, @Query() q: PageQueryDto) {
    const page = await this.imports.list(orgId, { page: q.page ?? 1, limit: q.limit ?? 20 });
    return page.map(toContactImportResponse);
  }

  @Get(':id')
  @RequireScopes('contacts:read')
  @ResponseMessage('Import fetched successfully')
  @ApiEnvelope(ContactImportResultResponse)
  async get(@OrgId() orgId: OrgId, @Param('id', uuidParam) id: string) {
    return toContactImportResultResponse(await this.imports.get(orgId, id));
  }

  /** Starts processing with the chosen mappings: 202, status `queued`. */
  @Post(':id/start')
  @HttpCode(202)
  @RequireScopes('contacts:write')
  @ResponseMessage('Import queued')
  @ApiEnvelope(ContactImportResultResponse, { status: 202 })
  async start(
    @OrgId() orgId: OrgId,
    @Param('id', uuidParam) id: string,
    @Body() dto: StartImportDto,
  ) {
    return toContactImportResultResponse(await this.imports.start(orgId, id, dto));
  }

  /** Stops a queued or processing import at its next batch; committed batches stay. */
  @Post(':id/cancel')
  @HttpCode(200)
  @RequireScopes('contacts:write')
  @ResponseMessage('Import cancelled')
  @ApiEnvelope(ContactImportResultResponse)
  async cancel(@OrgId() orgId: OrgId, @Param('id', uuidParam) id: string) {
    return toContactImportResultResponse(await this.imports.cancel(orgId, id));
  }

  /** The invalid rows: original columns plus `row` and `error` (text/csv). */
  @Get(':id/errors')
  @RequireScopes('contacts:read')
  @ApiProduces('text/csv')
  @ApiOkResponse({ description: 'The invalid rows.', schema: { type: 'string', format: 'binary' } })
  async errors(@OrgId() orgId: OrgId, @Param('id', uuidParam) id: string, @Res() res: Response) {
    const file = await this.imports.errorsFile(orgId, id);
    res.status(200);
    res.setHeader('Content-Type', 'text/csv; charset=utf-8');
    res.setHeader('Content-Length', String(file.bytes));
    res.setHeader(
      'Content-Disposition',
      `attachment; filename="import-errors.csv"; filename*=UTF-8''${encodeURIComponent(file.fileName)}`,
    );
    // A read failing midway (the file removed meanwhile) ends the response short.
    file.stream.once('error', () => res.destroy());
    file.stream.pipe(res);
    return new RawResponse();
  }

  /** Deletes a draft or finished import and its files. */
  @Delete(':id')
  @RequireScopes('contacts:write')
  @ResponseMessage('Import deleted successfully')
  @ApiEnvelopeNull()
  async delete(@OrgId() orgId: OrgId, @Param('id', uuidParam) id: string) {
    await this.imports.delete(orgId, id);
    return null;
  }
}
