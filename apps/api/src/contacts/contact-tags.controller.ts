// HTTP routes of tags (§5).
import { Body, Controller, Delete, Get, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { ContactTagsService } from '@app/domain';
import { OrgId, RequireScopes, ResponseMessage } from '../http/decorators';
import { ApiEnvelope, ApiEnvelopeNull } from '../http/openapi-envelope';
import { PageMetaResponse } from '../http/page-meta.response';
import { uuidParam } from '../http/params';
import { PageQueryDto } from '../http/page-query.dto';
import { TagNameDto } from './contact-tags.dto';
import {
  ContactTagNameResponse,
  ContactTagResponse,
  toContactTagNameResponse,
  toContactTagResponse,
} from './contact-tag.response';

@ApiTags('contact-tags')
@Controller('api/v1/user/contact-tags')
export class ContactTagsController {
  constructor(private readonly tags: ContactTagsService) {}

  /** Tags by name, with the number of contacts carrying each. */
  @Get()
  @RequireScopes('contacts:read')
  @ResponseMessage('Tags fetched successfully')
  @ApiEnvelope(ContactTagResponse, { isArray: true, meta: PageMetaResponse })
  async list(@OrgId() orgId: OrgId, @Query() q: PageQueryDto) {
    const page = await this.tags.list(orgId, { page: q.page ?? 1, limit: q.limit ?? 20 });
    return page.map(toContactTagResponse);
  }

  /** Every tag, id and name only (contactCount is reported as 0). */
  @Get('all')
  @RequireScopes('contacts:read')
  @ResponseMessage('Tags fetched successfully')
  @ApiEnvelope(ContactTagNameResponse, { isArray: true })
  async all(@OrgId() orgId: OrgId) {
    return (await this.tags.all(orgId)).map(toContactTagNameResponse);
  }

  @Post()
  @RequireScopes('contacts:write')
  @ResponseMessage('Tag created successfully')
  @ApiEnvelope(ContactTagResponse, { status: 201 })
  async create(@OrgId() orgId: OrgId, @Body() dto: TagNameDto) {
    return toContactTagResponse(await this.tags.create(orgId, dto.name));
  }

  @Get(':id')
  @RequireScopes('contacts:read')
  @ResponseMessage('Tag fetched successfully')
  @ApiEnvelope(ContactTagResponse)
  async get(@OrgId() orgId: OrgId, @Param('id', uuidParam) id: string) {
    return toContactTagResponse(await this.tags.get(orgId, id));
  }

  @Patch(':id')
  @RequireScopes('contacts:write')
  @ResponseMessage('Tag updated successfully')
  @ApiEnvelope(ContactTagResponse)
  async rename(@OrgId() orgId: OrgId, @Param('id', uuidParam) id: string, @Body() dto: TagNameDto) {
    return toContactTagResponse(await this.tags.rename(orgId, id, dto.name));
  }

  /** Deletes the tag and removes it from every contact and list. */
  @Delete(':id')
  @RequireScopes('contacts:write')
  @ResponseMessage('Tag deleted successfully')
  @ApiEnvelopeNull()
  async delete(@OrgId() orgId: OrgId, @Param('id', uuidParam) id: string) {
    await this.tags.delete(orgId, id);
    return null;
  }
}
