// HTTP routes of contact lists and memberships (§5).
import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { ContactListsService } from '@app/domain';
import { OrgId, RequireScopes, ResponseMessage } from '../http/decorators';
import { ApiEnvelope, ApiEnvelopeNull } from '../http/openapi-envelope';
import { PageMetaResponse } from '../http/page-meta.response';
import { uuidParam } from '../http/params';
import { PageQueryDto } from '../http/page-query.dto';
import {
  CreateListDto,
  MembersQueryDto,
  SubscribeDto,
  UnsubscribeDto,
  UpdateListDto,
} from './contact-lists.dto';
import {
  ContactListMembershipResponse,
  ContactListResponse,
  toContactListMembershipResponse,
  toContactListResponse,
} from './contact-list.response';

@ApiTags('contact-lists')
@Controller('api/v1/user/contact-lists')
export class ContactListsController {
  constructor(private readonly lists: ContactListsService) {}

  @Get()
  @RequireScopes('contacts:read')
  @ResponseMessage('Contact lists fetched successfully')
  @ApiEnvelope(ContactListResponse, { isArray: true, meta: PageMetaResponse })
  async list(@OrgId() orgId: OrgId, @Query() q: PageQueryDto) {
    const page = await this.lists.list(orgId, { page: q.page ?? 1, limit: q.limit ?? 20 });
    return page.map(toContactListResponse);
  }

  @Post()
  @RequireScopes('contacts:write')
  @ResponseMessage('Contact list created successfully')
  @ApiEnvelope(ContactListResponse, { status: 201 })
  async create(@OrgId() orgId: OrgId, @Body() dto: CreateListDto) {
    return toContactListResponse(await this.lists.create(orgId, dto));
  }

  @Get(':id')
  @RequireScopes('contacts:read')
  @ResponseMessage('Contact list fetched successfully')
  @ApiEnvelope(ContactListResponse)
  async get(@OrgId() orgId: OrgId, @Param('id', uuidParam) id: string) {
    return toContactListResponse(await this.lists.get(orgId, id));
  }

  @Patch(':id')
  @RequireScopes('contacts:write')
  @ResponseMessage('Contact list updated successfully')
  @ApiEnvelope(ContactListResponse)
  async update(
    @OrgId() orgId: OrgId,
    @Param('id', uuidParam) id: string,
    @Body() dto: UpdateListDto,
  ) {
    return toContactListResponse(await this.lists.update(orgId, id, dto));
  }

  /** Deletes a list and its memberships; the default list answers 409. */
  @Delete(':id')
  @RequireScopes('contacts:write')
  @ResponseMessage('Contact list deleted successfully')
  @ApiEnvelopeNull()
  async delete(@OrgId() orgId: OrgId, @Param('id', uuidParam) id: string) {
    await this.lists.delete(orgId, id);
    return null;
  }

  /** Memberships, newest first, each with its contact (ContactSummary with emails). */
  @Get(':id/members')
  @RequireScopes('contacts:read')
  @ResponseMessage('List members fetched successfully')
  @ApiEnvelope(ContactListMembershipResponse, { isArray: true, meta: PageMetaResponse })
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
    return page.map(toContactListMembershipResponse);
  }

  /** Subscribes contacts (idempotent); returns their memberships. */
  @Post(':id/members')
  @HttpCode(200)
  @RequireScopes('contacts:write')
  @ResponseMessage('Contacts subscribed successfully')
  @ApiEnvelope(ContactListMembershipResponse, { isArray: true })
  async subscribe(
    @OrgId() orgId: OrgId,
    @Param('id', uuidParam) id: string,
    @Body() dto: SubscribeDto,
  ) {
    const memberships = await this.lists.subscribe(orgId, id, dto.contactIds);
    return memberships.map((membership) => toContactListMembershipResponse({ membership }));
  }

  @Post(':id/members/:contactId/unsubscribe')
  @HttpCode(200)
  @RequireScopes('contacts:write')
  @ResponseMessage('Contact unsubscribed successfully')
  @ApiEnvelope(ContactListMembershipResponse)
  async unsubscribe(
    @OrgId() orgId: OrgId,
    @Param('id', uuidParam) id: string,
    @Param('contactId', uuidParam) contactId: string,
    @Body() dto: UnsubscribeDto,
  ) {
    const membership = await this.lists.unsubscribe(orgId, id, contactId, dto.reason ?? null);
    return toContactListMembershipResponse({ membership });
  }

  @Delete(':id/members/:contactId')
  @RequireScopes('contacts:write')
  @ResponseMessage('Contact removed from the list successfully')
  @ApiEnvelopeNull()
  async removeMember(
    @OrgId() orgId: OrgId,
    @Param('id', uuidParam) id: string,
    @Param('contactId', uuidParam) contactId: string,
  ) {
    await this.lists.removeMember(orgId, id, contactId);
    return null;
  }
}
