// HTTP routes of segments (§6): one service call each.
import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { SegmentsService, toContactResponse } from '@app/domain';
import { OrgId, RequireScopes, ResponseMessage } from '../http/decorators';
import { uuidParam } from '../http/params';
import {
  CreateSegmentDto,
  PreviewSegmentDto,
  SegmentGetQueryDto,
  SegmentListQueryDto,
  SegmentMembersDto,
  SegmentPageQueryDto,
  toSegmentResponse,
  UpdateSegmentDto,
} from './segments.dto';

@ApiTags('contact-segments')
@Controller('api/v1/user/contact-segments')
export class SegmentsController {
  constructor(private readonly segments: SegmentsService) {}

  @Post()
  @RequireScopes('contacts:write')
  @ResponseMessage('Segment created successfully')
  async create(@OrgId() orgId: OrgId, @Body() dto: CreateSegmentDto) {
    return toSegmentResponse(await this.segments.create(orgId, dto));
  }

  @Get()
  @RequireScopes('contacts:read')
  @ResponseMessage('Segments fetched successfully')
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
  async preview(@OrgId() orgId: OrgId, @Body() dto: PreviewSegmentDto) {
    const { count, sample } = await this.segments.preview(orgId, dto.rules);
    return { count, sample: sample.map(toContactResponse) };
  }

  @Get(':id')
  @RequireScopes('contacts:read')
  @ResponseMessage('Segment fetched successfully')
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
  async remove(@OrgId() orgId: OrgId, @Param('id', uuidParam) id: string) {
    await this.segments.remove(orgId, id);
    return null;
  }

  /** Static segments only (dynamic → 409); every id must be a contact of the organization. */
  @Post(':id/members')
  @HttpCode(200)
  @RequireScopes('contacts:write')
  @ResponseMessage('Segment members added successfully')
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
