// HTTP routes of contacts (§5).
import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { ContactsService } from '@app/domain';
import { OrgId, RequireScopes, ResponseMessage } from '../http/decorators';
import { ApiEnvelope, ApiEnvelopeNull } from '../http/openapi-envelope';
import { uuidParam } from '../http/params';
import {
  AddTagsDto,
  CreateContactDto,
  ListContactsQueryDto,
  UpdateContactDto,
} from './contacts.dto';
import { ContactPageMetaResponse, ContactResponse, toContactResponse } from './contact.response';

@ApiTags('contacts')
@Controller('api/v1/user/contacts')
export class ContactsController {
  constructor(private readonly contacts: ContactsService) {}

  /** The organization's contacts with channel records and tags preloaded; meta adds filters. */
  @Get()
  @RequireScopes('contacts:read')
  @ResponseMessage('Contacts fetched successfully')
  @ApiEnvelope(ContactResponse, { isArray: true, meta: ContactPageMetaResponse })
  async list(@OrgId() orgId: OrgId, @Query() q: ListContactsQueryDto) {
    return (await this.contacts.list(orgId, q)).map(toContactResponse);
  }

  @Post()
  @RequireScopes('contacts:write')
  @ResponseMessage('Contact created successfully')
  @ApiEnvelope(ContactResponse, { status: 201 })
  async create(@OrgId() orgId: OrgId, @Body() dto: CreateContactDto) {
    return toContactResponse(await this.contacts.create(orgId, dto));
  }

  /** One contact with every channel record, tag and list membership. */
  @Get(':id')
  @RequireScopes('contacts:read')
  @ResponseMessage('Contact fetched successfully')
  @ApiEnvelope(ContactResponse)
  async get(@OrgId() orgId: OrgId, @Param('id', uuidParam) id: string) {
    return toContactResponse(await this.contacts.get(orgId, id));
  }

  @Patch(':id')
  @RequireScopes('contacts:write')
  @ResponseMessage('Contact updated successfully')
  @ApiEnvelope(ContactResponse)
  async update(
    @OrgId() orgId: OrgId,
    @Param('id', uuidParam) id: string,
    @Body() dto: UpdateContactDto,
  ) {
    return toContactResponse(await this.contacts.update(orgId, id, dto));
  }

  /** Removes the contact, its channel records and its list memberships. */
  @Delete(':id')
  @RequireScopes('contacts:write')
  @ResponseMessage('Contact deleted successfully')
  @ApiEnvelopeNull()
  async delete(@OrgId() orgId: OrgId, @Param('id', uuidParam) id: string) {
    await this.contacts.delete(orgId, id);
    return null;
  }

  /** Adds tags by name; tags that do not exist yet are created. */
  @Post(':id/tags')
  @HttpCode(200)
  @RequireScopes('contacts:write')
  @ResponseMessage('Tags added successfully')
  @ApiEnvelope(ContactResponse)
  async addTags(
    @OrgId() orgId: OrgId,
    @Param('id', uuidParam) id: string,
    @Body() dto: AddTagsDto,
  ) {
    return toContactResponse(await this.contacts.addTags(orgId, id, dto.names));
  }

  @Delete(':id/tags/:tagId')
  @RequireScopes('contacts:write')
  @ResponseMessage('Tag removed successfully')
  @ApiEnvelope(ContactResponse)
  async removeTag(
    @OrgId() orgId: OrgId,
    @Param('id', uuidParam) id: string,
    @Param('tagId', uuidParam) tagId: string,
  ) {
    return toContactResponse(await this.contacts.removeTag(orgId, id, tagId));
  }
}
