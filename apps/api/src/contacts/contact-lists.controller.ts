// HTTP routes of contact lists and memberships (§5).
import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { ContactListsService, toListResponse, toMembershipResponse } from '@app/domain';
import { OrgId, RequireScopes, ResponseMessage } from '../http/decorators';
import { uuidParam } from '../http/params';
import { PageQueryDto } from '../http/page-query.dto';
import {
  CreateListDto,
  MembersQueryDto,
  SubscribeDto,
  UnsubscribeDto,
  UpdateListDto,
} from './contact-lists.dto';

@ApiTags('contact-lists')
@Controller('api/v1/user/contact-lists')
export class ContactListsController {
  constructor(private readonly lists: ContactListsService) {}

  @Get()
  @RequireScopes('contacts:read')
  @ResponseMessage('Contact lists fetched successfully')
  async list(@OrgId() orgId: OrgId, @Query() q: PageQueryDto) {
    const page = await this.lists.list(orgId, { page: q.page ?? 1, limit: q.limit ?? 20 });
    return page.map(toListResponse);
  }

  @Post()
  @RequireScopes('contacts:write')
  @ResponseMessage('Contact list created successfully')
  async create(@OrgId() orgId: OrgId, @Body() dto: CreateListDto) {
    return toListResponse(await this.lists.create(orgId, dto));
  }

  @Get(':id')
  @RequireScopes('contacts:read')
  @ResponseMessage('Contact list fetched successfully')
  async get(@OrgId() orgId: OrgId, @Param('id', uuidParam) id: string) {
    return toListResponse(await this.lists.get(orgId, id));
  }

  @Patch(':id')
  @RequireScopes('contacts:write')
  @ResponseMessage('Contact list updated successfully')
  async update(
    @OrgId() orgId: OrgId,
    @Param('id', uuidParam) id: string,
    @Body() dto: UpdateListDto,
  ) {
    return toListResponse(await this.lists.update(orgId, id, dto));
  }

  /** Deletes a list and its memberships; the default list answers 409. */
  @Delete(':id')
  @RequireScopes('contacts:write')
  @ResponseMessage('Contact list deleted successfully')
  async delete(@OrgId() orgId: OrgId, @Param('id', uuidParam) id: string) {
    await this.lists.delete(orgId, id);
    return null;
  }

  /** Memberships, newest first, each with its contact (ContactSummary with emails). */
  @Get(':id/members')
  @RequireScopes('contacts:read')
  @ResponseMessage('List members fetched successfully')
  async members(
    @OrgId() orgId: OrgId,
    @Param('id', uuidParam) id: string,
    @Query() q: MembersQueryDto,
  ) {
    const page = await this.lists.members(
      orgId,
      id,
      { page: q.page ?? 1, limit: q.limit ?? 20 },
      q.status,
    );
    return page.map(toMembershipResponse);
  }

  /** Subscribes contacts (idempotent); returns their memberships. */
  @Post(':id/members')
  @HttpCode(200)
  @RequireScopes('contacts:write')
  @ResponseMessage('Contacts subscribed successfully')
  async subscribe(
    @OrgId() orgId: OrgId,
    @Param('id', uuidParam) id: string,
    @Body() dto: SubscribeDto,
  ) {
    const memberships = await this.lists.subscribe(orgId, id, dto.contactIds);
    return memberships.map((membership) => toMembershipResponse({ membership }));
  }

  @Post(':id/members/:contactId/unsubscribe')
  @HttpCode(200)
  @RequireScopes('contacts:write')
  @ResponseMessage('Contact unsubscribed successfully')
  async unsubscribe(
    @OrgId() orgId: OrgId,
    @Param('id', uuidParam) id: string,
    @Param('contactId', uuidParam) contactId: string,
    @Body() dto: UnsubscribeDto,
  ) {
    const membership = await this.lists.unsubscribe(orgId, id, contactId, dto.reason ?? null);
    return toMembershipResponse({ membership });
  }

  @Delete(':id/members/:contactId')
  @RequireScopes('contacts:write')
  @ResponseMessage('Contact removed from the list successfully')
  async removeMember(
    @OrgId() orgId: OrgId,
    @Param('id', uuidParam) id: string,
    @Param('contactId', uuidParam) contactId: string,
  ) {
    await this.lists.removeMember(orgId, id, contactId);
    return null;
  }
}
