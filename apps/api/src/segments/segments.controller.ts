// HTTP routes of segments (§6): one service call each.
import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { SegmentsService } from '@app/domain';
import { ContactResponse, toContactResponse } from '../contacts/contact.response';
import { OrgId, RequireScopes, ResponseMessage } from '../http/decorators';
import { ApiEnvelope, ApiEnvelopeNull } from '../http/openapi-envelope';
import { PageMetaResponse } from '../http/page-meta.response';
import { uuidParam } from '../http/params';
import {
  CreateSegmentDto,
  PreviewSegmentDto,
  SegmentGetQueryDto,
  SegmentListQueryDto,
  SegmentMembersDto,
  SegmentPageQueryDto,
  UpdateSegmentDto,
} from './segments.dto';
import {
  SegmentPreviewResponse,
  SegmentResponse,
  toSegmentPreviewResponse,
  toSegmentResponse,
} from './segment.response';

@ApiTags('contact-segments')
@Controller('api/v1/user/contact-segments')
export class SegmentsController {
  constructor(private readonly segments: SegmentsService) {}

  @Post()
  @RequireScopes('contacts:write')
  @ResponseMessage('Segment created successfully')
  @ApiEnvelope(SegmentResponse, { status: 201 })
  async create(@OrgId() orgId: OrgId, @Body() dto: CreateSegmentDto) {
    return toSegmentResponse(await this.segments.create(orgId, dto));
  }

  @Get()
  @RequireScopes('contacts:read')
  @ResponseMessage('Segments fetched successfully')
  @ApiEnvelope(SegmentResponse, { isArray: true, meta: PageMetaResponse })
  async list(@OrgId() orgId: OrgId, @Query() q: SegmentListQueryDto) {
    const page = await this.segments.list(
      orgId,
      { page: q.page ?? 1, limit: q.limit ?? 20 },
      q.withCounts === 'true',
    );
    return page.map(toSegmentResponse);
  }

  /** Count and first 10 contacts that rules select; nothing is stored. */
  @Post('preview')
  @HttpCode(200)
  @RequireScopes('contacts:read')
  @ResponseMessage('Segment preview computed successfully')
  @ApiEnvelope(SegmentPreviewResponse)
  async preview(@OrgId() orgId: OrgId, @Body() dto: PreviewSegmentDto) {
    return toSegmentPreviewResponse(await this.segments.preview(orgId, dto.rules));
  }

  @Get(':id')
  @RequireScopes('contacts:read')
  @ResponseMessage('Segment fetched successfully')
  @ApiEnvelope(SegmentResponse)
  async get(
    @OrgId() orgId: OrgId,
    @Param('id', uuidParam) id: string,
    @Query() q: SegmentGetQueryDto,
  ) {
    return toSegmentResponse(await this.segments.get(orgId, id, q.withCounts === 'true'));
  }

  @Patch(':id')
  @RequireScopes('contacts:write')
  @ResponseMessage('Segment updated successfully')
  @ApiEnvelope(SegmentResponse)
  async update(
    @OrgId() orgId: OrgId,
    @Param('id', uuidParam) id: string,
    @Body() dto: UpdateSegmentDto,
  ) {
    return toSegmentResponse(await this.segments.update(orgId, id, dto));
  }

  @Delete(':id')
  @RequireScopes('contacts:write')
  @ResponseMessage('Segment deleted successfully')
  @ApiEnvelopeNull()
  async remove(@OrgId() orgId: OrgId, @Param('id', uuidParam) id: string) {
    await this.segments.remove(orgId, id);
    return null;
  }

  /** Static segments only (dynamic → 409); every id must be a contact of the organization. */
  @Post(':id/members')
  @HttpCode(200)
  @RequireScopes('contacts:write')
  @ResponseMessage('Segment members added successfully')
  @ApiEnvelope(SegmentResponse)
  async addMembers(
    @OrgId() orgId: OrgId,
    @Param('id', uuidParam) id: string,
    @Body() dto: SegmentMembersDto,
  ) {
    return toSegmentResponse(await this.segments.addMembers(orgId, id, dto.contactIds));
  }

  @Delete(':id/members')
  @RequireScopes('contacts:write')
  @ResponseMessage('Segment members removed successfully')
  @ApiEnvelope(SegmentResponse)
  async removeMembers(
    @OrgId() orgId: OrgId,
    @Param('id', uuidParam) id: string,
    @Body() dto: SegmentMembersDto,
  ) {
    return toSegmentResponse(await this.segments.removeMembers(orgId, id, dto.contactIds));
  }

  /** The segment's contacts, newest first, with emails and tags (spec). */
  @Get(':id/contacts')
  @RequireScopes('contacts:read')
  @ResponseMessage('Segment contacts fetched successfully')
  @ApiEnvelope(ContactResponse, { isArray: true, meta: PageMetaResponse })
  async contacts(
    @OrgId() orgId: OrgId,
    @Param('id', uuidParam) id: string,
    @Query() q: SegmentPageQueryDto,
  ) {
    const page = await this.segments.contacts(orgId, id, {
      page: q.page ?? 1,
      limit: q.limit ?? 20,
    });
    return page.map(toContactResponse);
  }
}
