// HTTP routes of a contact's channel records; the encrypted value is immutable (PATCH refuses it).
import { Body, Controller, Delete, Param, Patch, Post } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { ContactChannelsService } from '@app/domain';
import { OrgId, RequireScopes, ResponseMessage } from '../http/decorators';
import { ApiEnvelope, ApiEnvelopeNull } from '../http/openapi-envelope';
import { uuidParam } from '../http/params';
import {
  CreateEmailDto,
  CreateImessageDto,
  CreatePushDto,
  CreateSmsDto,
  CreateTelegramDto,
  CreateWhatsappDto,
  UpdateEmailDto,
  UpdateImessageDto,
  UpdatePushDto,
  UpdateSmsDto,
  UpdateTelegramDto,
  UpdateWhatsappDto,
} from './contact-channels.dto';
import {
  ContactEmailResponse,
  ContactImessageResponse,
  ContactPushResponse,
  ContactSmsResponse,
  ContactTelegramResponse,
  ContactWhatsappResponse,
  toContactEmailResponse,
  toContactImessageResponse,
  toContactPushResponse,
  toContactSmsResponse,
  toContactTelegramResponse,
  toContactWhatsappResponse,
} from './contact-channel.response';

@ApiTags('contacts')
@Controller('api/v1/user/contacts/:contactId')
@RequireScopes('contacts:write')
export class ContactChannelsController {
  constructor(private readonly channels: ContactChannelsService) {}

  @Post('emails')
  @ResponseMessage('Email added successfully')
  @ApiEnvelope(ContactEmailResponse, { status: 201 })
  async addEmail(
    @OrgId() orgId: OrgId,
    @Param('contactId', uuidParam) contactId: string,
    @Body() dto: CreateEmailDto,
  ) {
    return toContactEmailResponse(await this.channels.create(orgId, contactId, 'email', dto));
  }

  @Patch('emails/:channelId')
  @ResponseMessage('Email updated successfully')
  @ApiEnvelope(ContactEmailResponse)
  async updateEmail(
    @OrgId() orgId: OrgId,
    @Param('contactId', uuidParam) contactId: string,
    @Param('channelId', uuidParam) channelId: string,
    @Body() dto: UpdateEmailDto,
  ) {
    return toContactEmailResponse(
      await this.channels.update(orgId, contactId, 'email', channelId, dto),
    );
  }

  @Delete('emails/:channelId')
  @ResponseMessage('Email deleted successfully')
  @ApiEnvelopeNull()
  async deleteEmail(
    @OrgId() orgId: OrgId,
    @Param('contactId', uuidParam) contactId: string,
    @Param('channelId', uuidParam) channelId: string,
  ) {
    await this.channels.delete(orgId, contactId, 'email', channelId);
    return null;
  }

  @Post('sms')
  @ResponseMessage('SMS number added successfully')
  @ApiEnvelope(ContactSmsResponse, { status: 201 })
  async addSms(
    @OrgId() orgId: OrgId,
    @Param('contactId', uuidParam) contactId: string,
    @Body() dto: CreateSmsDto,
  ) {
    return toContactSmsResponse(await this.channels.create(orgId, contactId, 'sms', dto));
  }

  /** Changes the status or the primary flag; the number is immutable (§12.1: unknown contact → 404). */
  @Patch('sms/:channelId')
  @ResponseMessage('SMS number updated successfully')
  @ApiEnvelope(ContactSmsResponse)
  async updateSms(
    @OrgId() orgId: OrgId,
    @Param('contactId', uuidParam) contactId: string,
    @Param('channelId', uuidParam) channelId: string,
    @Body() dto: UpdateSmsDto,
  ) {
    return toContactSmsResponse(
      await this.channels.update(orgId, contactId, 'sms', channelId, dto),
    );
  }

  @Delete('sms/:channelId')
  @ResponseMessage('SMS number deleted successfully')
  @ApiEnvelopeNull()
  async deleteSms(
    @OrgId() orgId: OrgId,
    @Param('contactId', uuidParam) contactId: string,
    @Param('channelId', uuidParam) channelId: string,
  ) {
    await this.channels.delete(orgId, contactId, 'sms', channelId);
    return null;
  }

  @Post('whatsapp')
  @ResponseMessage('WhatsApp account added successfully')
  @ApiEnvelope(ContactWhatsappResponse, { status: 201 })
  async addWhatsapp(
    @OrgId() orgId: OrgId,
    @Param('contactId', uuidParam) contactId: string,
    @Body() dto: CreateWhatsappDto,
  ) {
    return toContactWhatsappResponse(await this.channels.create(orgId, contactId, 'whatsapp', dto));
  }

  @Patch('whatsapp/:channelId')
  @ResponseMessage('WhatsApp account updated successfully')
  @ApiEnvelope(ContactWhatsappResponse)
  async updateWhatsapp(
    @OrgId() orgId: OrgId,
    @Param('contactId', uuidParam) contactId: string,
    @Param('channelId', uuidParam) channelId: string,
    @Body() dto: UpdateWhatsappDto,
  ) {
    return toContactWhatsappResponse(
      await this.channels.update(orgId, contactId, 'whatsapp', channelId, dto),
    );
  }

  @Delete('whatsapp/:channelId')
  @ResponseMessage('WhatsApp account deleted successfully')
  @ApiEnvelopeNull()
  async deleteWhatsapp(
    @OrgId() orgId: OrgId,
    @Param('contactId', uuidParam) contactId: string,
    @Param('channelId', uuidParam) channelId: string,
  ) {
    await this.channels.delete(orgId, contactId, 'whatsapp', channelId);
    return null;
  }

  @Post('telegram')
  @ResponseMessage('Telegram account added successfully')
  @ApiEnvelope(ContactTelegramResponse, { status: 201 })
  async addTelegram(
    @OrgId() orgId: OrgId,
    @Param('contactId', uuidParam) contactId: string,
    @Body() dto: CreateTelegramDto,
  ) {
    return toContactTelegramResponse(await this.channels.create(orgId, contactId, 'telegram', dto));
  }

  @Patch('telegram/:channelId')
  @ResponseMessage('Telegram account updated successfully')
  @ApiEnvelope(ContactTelegramResponse)
  async updateTelegram(
    @OrgId() orgId: OrgId,
    @Param('contactId', uuidParam) contactId: string,
    @Param('channelId', uuidParam) channelId: string,
    @Body() dto: UpdateTelegramDto,
  ) {
    return toContactTelegramResponse(
      await this.channels.update(orgId, contactId, 'telegram', channelId, dto),
    );
  }

  @Delete('telegram/:channelId')
  @ResponseMessage('Telegram account deleted successfully')
  @ApiEnvelopeNull()
  async deleteTelegram(
    @OrgId() orgId: OrgId,
    @Param('contactId', uuidParam) contactId: string,
    @Param('channelId', uuidParam) channelId: string,
  ) {
    await this.channels.delete(orgId, contactId, 'telegram', channelId);
    return null;
  }

  @Post('imessage')
  @ResponseMessage('iMessage account added successfully')
  @ApiEnvelope(ContactImessageResponse, { status: 201 })
  async addImessage(
    @OrgId() orgId: OrgId,
    @Param('contactId', uuidParam) contactId: string,
    @Body() dto: CreateImessageDto,
  ) {
    return toContactImessageResponse(await this.channels.create(orgId, contactId, 'imessage', dto));
  }

  @Patch('imessage/:channelId')
  @ResponseMessage('iMessage account updated successfully')
  @ApiEnvelope(ContactImessageResponse)
  async updateImessage(
    @OrgId() orgId: OrgId,
    @Param('contactId', uuidParam) contactId: string,
    @Param('channelId', uuidParam) channelId: string,
    @Body() dto: UpdateImessageDto,
  ) {
    return toContactImessageResponse(
      await this.channels.update(orgId, contactId, 'imessage', channelId, dto),
    );
  }

  @Delete('imessage/:channelId')
  @ResponseMessage('iMessage account deleted successfully')
  @ApiEnvelopeNull()
  async deleteImessage(
    @OrgId() orgId: OrgId,
    @Param('contactId', uuidParam) contactId: string,
    @Param('channelId', uuidParam) channelId: string,
  ) {
    await this.channels.delete(orgId, contactId, 'imessage', channelId);
    return null;
  }

  @Post('push')
  @ResponseMessage('Push registration added successfully')
  @ApiEnvelope(ContactPushResponse, { status: 201 })
  async addPush(
    @OrgId() orgId: OrgId,
    @Param('contactId', uuidParam) contactId: string,
    @Body() dto: CreatePushDto,
  ) {
    return toContactPushResponse(await this.channels.create(orgId, contactId, 'push', dto));
  }

  @Patch('push/:channelId')
  @ResponseMessage('Push registration updated successfully')
  @ApiEnvelope(ContactPushResponse)
  async updatePush(
    @OrgId() orgId: OrgId,
    @Param('contactId', uuidParam) contactId: string,
    @Param('channelId', uuidParam) channelId: string,
    @Body() dto: UpdatePushDto,
  ) {
    return toContactPushResponse(
      await this.channels.update(orgId, contactId, 'push', channelId, dto),
    );
  }

  @Delete('push/:channelId')
  @ResponseMessage('Push registration deleted successfully')
  @ApiEnvelopeNull()
  async deletePush(
    @OrgId() orgId: OrgId,
    @Param('contactId', uuidParam) contactId: string,
    @Param('channelId', uuidParam) channelId: string,
  ) {
    await this.channels.delete(orgId, contactId, 'push', channelId);
    return null;
  }
}
