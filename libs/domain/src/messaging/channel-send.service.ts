// The send API beyond email (§17): `POST /send/{sms,whatsapp,telegram,imessage,push}`. The same path as an
// email: the organization's own references, its subscription and sending windows (one request,
// one recipient), the message committed with its channel and provider account before the 202,
// then its delivery queued. Consent is the worker's to check, at the moment of sending.
import { Injectable } from '@nestjs/common';
import type { ChannelContent } from '../channels/channel-message';
import type { OrgId } from '../common/org-id';
import type { PushPlatform } from '../contacts/contact-channels.entity';
import { ProviderAccounts } from '../channels/provider-accounts';
import type {
  ImessageContent,
  ProviderChannel,
  PushContent,
  TelegramContent,
  WhatsappContent,
} from '../channels/provider-adapter';
import { Clock } from '../common/clock';
import { isEmail } from 'class-validator';
import { normalisePhone } from '../contacts/phone-number';
import { normaliseEmail } from '../crypto/field-encryption';
import { NotFoundError, ValidationFailedError } from '../errors/domain-errors';
import { ChannelAddresses, ChannelAddress } from './channel-addresses.repository';
import { EmailDispatcher } from './email-dispatcher';
import { MessageRepository } from './message.repository';
import { MessageService } from './message.service';
import type { MessageSource } from './message.types';
import { newMessageUlid, SendService } from './send.service';

interface ChannelSendCommon {
  providerId?: string;
  campaignId?: string;
  tags?: string[];
}

export interface SendSmsInput extends ChannelSendCommon {
  to: { contactId?: string; phoneNumber?: string };
  content: { text: string; mediaUrls?: string[] };
  /** Links of the text through short tracked links (`/t/c/{id}`). */
  track?: { clicks?: boolean };
}

export interface SendWhatsappInput extends ChannelSendCommon {
  to: { contactId?: string; phoneNumber?: string };
  content: WhatsappContent;
  track?: { clicks?: boolean };
}

export interface SendTelegramInput extends ChannelSendCommon {
  to: { contactId?: string; chatId?: string };
  content: TelegramContent;
  track?: { clicks?: boolean };
}

export interface SendImessageInput extends ChannelSendCommon {
  to: { contactId?: string; appleId?: string };
  content: ImessageContent;
  track?: { clicks?: boolean };
}

export interface SendPushInput extends ChannelSendCommon {
  to: { contactId?: string; deviceToken?: string; platform?: PushPlatform };
  content: PushContent;
}

export interface ChannelSendResult {
  jobId: string;
  channel: ProviderChannel;
  status: 'queued';
}

@Injectable()
export class ChannelSendService {
  constructor(
    private readonly sender: SendService,
    private readonly accounts: ProviderAccounts,
    private readonly addresses: ChannelAddresses,
    private readonly references: MessageRepository,
    private readonly messages: MessageService,
    private readonly dispatcher: EmailDispatcher,
    private readonly clock: Clock,
  ) {}

  async sendSms(
    organizationId: OrgId,
    input: SendSmsInput,
    source: MessageSource = 'api',
  ): Promise<ChannelSendResult> {
    const address = await this.addressOf(organizationId, 'sms', input, {
      field: 'phoneNumber',
      value: input.to.phoneNumber,
    });
    const account = await this.accounts.choose(organizationId, 'sms', input.providerId);
    const settings = account.settings as { from?: string; messagingServiceSid?: string };
    return this.commit(organizationId, source, {
      channel: 'sms',
      providerId: account.id,
      sender: settings.from ?? settings.messagingServiceSid ?? account.name,
      address,
      contactId: input.to.contactId ?? null,
      content: { kind: 'sms', ...input.content },
      trackClicks: input.track?.clicks === true,
      input,
    });
  }

  /**
   * A WhatsApp message: free text, an approved template, or both (the text goes inside the
   * 24-hour customer-service window, the template outside it).
   */
  async sendWhatsapp(
    organizationId: OrgId,
    input: SendWhatsappInput,
    source: MessageSource = 'api',
  ): Promise<ChannelSendResult> {
    if (!input.content.text && !input.content.template) {
      throw ValidationFailedError.field('content.text', 'required', 'Give a text or a template');
    }
    const address = await this.addressOf(organizationId, 'whatsapp', input, {
      field: 'phoneNumber',
      value: input.to.phoneNumber,
    });
    const account = await this.accounts.choose(organizationId, 'whatsapp', input.providerId);
    const settings = account.settings as { phoneNumberId?: string };
    return this.commit(organizationId, source, {
      channel: 'whatsapp',
      providerId: account.id,
      sender: settings.phoneNumberId ?? account.name,
      address,
      contactId: input.to.contactId ?? null,
      content: { kind: 'whatsapp', ...input.content },
      trackClicks: input.track?.clicks === true,
      input,
    });
  }

  /** A Telegram message to a chat that opened the bot's deep link (a contact's) or a chat id. */
  async sendTelegram(
    organizationId: OrgId,
    input: SendTelegramInput,
    source: MessageSource = 'api',
  ): Promise<ChannelSendResult> {
    const address = await this.addressOf(organizationId, 'telegram', input, {
      field: 'chatId',
      value: input.to.chatId,
    });
    const account = await this.accounts.choose(organizationId, 'telegram', input.providerId);
    const settings = account.settings as { botUsername?: string };
    return this.commit(organizationId, source, {
      channel: 'telegram',
      providerId: account.id,
      sender: settings.botUsername ?? account.name,
      address,
      contactId: input.to.contactId ?? null,
      content: { kind: 'telegram', ...input.content },
      trackClicks: input.track?.clicks === true,
      input,
    });
  }

  /** An iMessage to a contact's Apple ID (an e-mail address or a phone number) or a raw one. */
  async sendImessage(
    organizationId: OrgId,
    input: SendImessageInput,
    source: MessageSource = 'api',
  ): Promise<ChannelSendResult> {
    const address = await this.addressOf(organizationId, 'imessage', input, {
      field: 'appleId',
      value: input.to.appleId,
    });
    const account = await this.accounts.choose(organizationId, 'imessage', input.providerId);
    return this.commit(organizationId, source, {
      channel: 'imessage',
      providerId: account.id,
      sender: account.name,
      address,
      contactId: input.to.contactId ?? null,
      content: { kind: 'imessage', ...input.content },
      trackClicks: input.track?.clicks === true,
      input,
    });
  }

  async sendPush(
    organizationId: OrgId,
    input: SendPushInput,
    source: MessageSource = 'api',
  ): Promise<ChannelSendResult> {
    const { contactId, deviceToken } = input.to;
    onlyOne(contactId, deviceToken, 'deviceToken');
    if (!input.content.title && !input.content.body) {
      throw ValidationFailedError.field('content.body', 'required', 'Give a title or a body');
    }
    await this.checkReferences(organizationId, input.campaignId, contactId);
    let record: Pick<ChannelAddress, 'address' | 'platform'>;
    if (contactId) {
      record = await this.recordOf(organizationId, 'push', contactId);
    } else {
      const known = await this.addresses.byAddress(organizationId, 'push', deviceToken!.trim());
      const platform = input.to.platform ?? known?.platform;
      if (!platform) {
        throw ValidationFailedError.field(
          'to.platform',
          'required',
          'to.platform (ios, android or web) is required for a device token the contact records do not hold',
        );
      }
      record = { address: deviceToken!.trim(), platform };
    }
    // A raw token's platform was given or known above; a contact's record always holds one.
    const platform: PushPlatform = input.to.platform ?? record.platform!;
    const account = await this.accounts.choose(organizationId, 'push', input.providerId, platform);
    return this.commit(organizationId, source, {
      channel: 'push',
      providerId: account.id,
      sender: account.name,
      address: record.address,
      contactId: contactId ?? null,
      content: { kind: 'push', ...input.content, platform },
      input,
    });
  }

  /**
   * Where the message goes: the contact's best record of the channel, or the raw address given,
   * checked in the channel's format (422 naming `to.<field>`). Exactly one of the two.
   */
  private async addressOf(
    organizationId: OrgId,
    channel: Exclude<ProviderChannel, 'push'>,
    input: ChannelSendCommon & { to: { contactId?: string } },
    given: { field: string; value: string | undefined },
  ): Promise<string> {
    const { contactId } = input.to;
    onlyOne(contactId, given.value, given.field);
    await this.checkReferences(organizationId, input.campaignId, contactId);
    if (contactId) {
      return (await this.recordOf(organizationId, channel, contactId)).address;
    }
    const address = RAW_ADDRESS[channel](given.value!);
    if (!address) {
      throw ValidationFailedError.field(
        `to.${given.field}`,
        'type',
        `to.${given.field} must be ${RAW_ADDRESS_FORMAT[channel]}`,
      );
    }
    return address;
  }

  /** A campaign or contact named by the client must be the organization's own (else 404). */
  private async checkReferences(organizationId: OrgId, campaignId?: string, contactId?: string) {
    const foreign = await this.references.foreignReference(organizationId, {
      campaignId: campaignId ?? null,
      contactId: contactId ?? null,
    });
    if (foreign === 'campaign') throw new NotFoundError('Campaign');
    if (foreign === 'contact') throw new NotFoundError('Contact');
  }

  /**
   * The contact's record to send to: its primary sendable one, else any sendable, else (all of
   * them refused) its primary, whose message the worker records `suppressed`. A 422 when the
   * contact has no record of the channel.
   */
  private async recordOf(organizationId: OrgId, channel: ProviderChannel, contactId: string) {
    const record = await this.addresses.bestOf(organizationId, channel, contactId);
    if (!record) {
      throw ValidationFailedError.field(
        'to.contactId',
        'type',
        `The contact has no ${RECORD_NAMES[channel]}`,
      );
    }
    return record;
  }

  private async commit(
    organizationId: OrgId,
    source: MessageSource,
    m: {
      channel: ProviderChannel;
      providerId: string;
      sender: string;
      address: string;
      contactId: string | null;
      content: ChannelContent;
      trackClicks?: boolean;
      input: ChannelSendCommon;
    },
  ): Promise<ChannelSendResult> {
    await this.sender.admit(organizationId, { requests: 1, recipients: 1 });
    const now = this.clock.now();
    const id = newMessageUlid(now);
    const jobId = `job_${id}`;
    const rowId = await this.messages.create({
      organizationId,
      jobId,
      messageId: `<${id}@${m.channel}>`,
      source,
      channel: m.channel,
      providerId: m.providerId,
      senderAddress: m.sender,
      campaignId: m.input.campaignId ?? null,
      contactId: m.contactId,
      tags: m.input.tags ?? [],
      trackOpens: false,
      trackClicks: m.trackClicks ?? false,
      content: m.content,
      recipients: [{ kind: 'to', email: m.address }],
      createdAt: now,
    });
    await this.dispatcher.enqueueNew(organizationId, rowId);
    return { jobId, channel: m.channel, status: 'queued' };
  }
}

/** A raw address of each channel in its stored form, or null when it is not one. */
const RAW_ADDRESS: Record<Exclude<ProviderChannel, 'push'>, (v: string) => string | null> = {
  sms: (v) => normalisePhone(v),
  whatsapp: (v) => normalisePhone(v),
  telegram: (v) => (/^-?\d{1,20}$/.test(v.trim()) ? v.trim() : null),
  imessage: (v) => normalisePhone(v) ?? (isEmail(v.trim()) ? normaliseEmail(v) : null),
};
const RAW_ADDRESS_FORMAT: Record<Exclude<ProviderChannel, 'push'>, string> = {
  sms: 'a phone number in E.164 format, e.g. +14155550100',
  whatsapp: 'a phone number in E.164 format, e.g. +14155550100',
  telegram: 'a Telegram chat id (digits)',
  imessage: 'an Apple ID: an e-mail address or a phone number in E.164 format',
};
const RECORD_NAMES: Record<ProviderChannel, string> = {
  sms: 'SMS number',
  whatsapp: 'WhatsApp number',
  telegram: 'Telegram chat (its deep link was never opened)',
  imessage: 'iMessage address',
  push: 'push registration',
};

/** `to` names either a contact or an address of the channel, never both, never neither. */
function onlyOne(contactId: string | undefined, address: string | undefined, field: string) {
  if (!contactId === !address) {
    throw ValidationFailedError.field(
      'to',
      'required',
      `to must name either contactId or ${field}, not both`,
    );
  }
}
