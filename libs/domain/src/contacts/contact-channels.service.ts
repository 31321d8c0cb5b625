// Channel records of a contact (§5): add, change status / primary flag / non-secret fields, delete.
import { Injectable, Optional } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager, ObjectLiteral } from 'typeorm';
import { Clock, SystemClock } from '../common/clock';
import type { OrgId } from '../common/org-id';
import { inTransaction } from '../database/transaction';
import { NotFoundError, ValidationFailedError } from '../errors/domain-errors';
import { blindIndexCandidatesOf } from './blind-index';
import {
  CHANNEL_INFO,
  ChannelRecordOf,
  ContactChannel,
  ContactPush,
  EmailStatus,
  ImessageStatus,
  PushPlatform,
  PushStatus,
  SmsStatus,
  TelegramStatus,
  WhatsappStatus,
} from './contact-channels.entity';
import { ContactChannelsRepository } from './contact-channels.repository';
import { ContactEvents } from './contact.events';
import { notAPhoneNumber } from './contact.rules';
import {
  ContactsRepository,
  duplicateEmailConflict,
  isDuplicateEmail,
} from './contacts.repository';
import { countryOfPhone, normalisePhone } from './phone-number';

type Maybe<T> = T | null | undefined;

export interface EmailInput {
  email: string;
  status?: EmailStatus;
  isPrimary?: boolean;
  verifiedAt?: Maybe<Date>;
}
export interface SmsInput {
  phoneNumber: string;
  countryCode?: string;
  status?: SmsStatus;
  isPrimary?: boolean;
  verifiedAt?: Maybe<Date>;
  optedOutAt?: Maybe<Date>;
}
export interface WhatsappInput {
  phoneNumber: string;
  countryCode?: string;
  status?: WhatsappStatus;
  isPrimary?: boolean;
  isBusinessAccount?: boolean;
  lastSeenAt?: Maybe<Date>;
  verifiedAt?: Maybe<Date>;
}
export interface TelegramInput {
  phoneNumber: string;
  countryCode?: string;
  username?: Maybe<string>;
  status?: TelegramStatus;
  isPrimary?: boolean;
  lastActiveAt?: Maybe<Date>;
}
export interface ImessageInput {
  appleId: string;
  phoneNumber?: Maybe<string>;
  status?: ImessageStatus;
  isPrimary?: boolean;
  verifiedAt?: Maybe<Date>;
}
export interface PushInput {
  deviceToken: string;
  platform: PushPlatform;
  status?: PushStatus;
  isPrimary?: boolean;
  appVersion?: Maybe<string>;
  deviceInfo?: Maybe<Record<string, unknown>>;
  lastUsedAt?: Maybe<Date>;
  expiresAt?: Maybe<Date>;
}

export interface ChannelInputOf {
  email: EmailInput;
  sms: SmsInput;
  whatsapp: WhatsappInput;
  telegram: TelegramInput;
  imessage: ImessageInput;
  push: PushInput;
}

/** What PATCH may change: never the encrypted value itself. */
export interface ChannelPatchOf {
  email: Pick<EmailInput, 'status' | 'isPrimary'>;
  sms: Pick<SmsInput, 'status' | 'isPrimary'>;
  whatsapp: Pick<WhatsappInput, 'status' | 'isPrimary' | 'isBusinessAccount' | 'lastSeenAt'>;
  telegram: Pick<TelegramInput, 'status' | 'isPrimary' | 'lastActiveAt'>;
  imessage: Pick<ImessageInput, 'status' | 'isPrimary'>;
  push: Pick<
    PushInput,
    'status' | 'isPrimary' | 'appVersion' | 'deviceInfo' | 'lastUsedAt' | 'expiresAt'
  >;
}

/** Status values that stamp a timestamp the first time a record enters them. */
const STAMPS: Partial<Record<ContactChannel, Record<string, string>>> = {
  email: { verified: 'verifiedAt' },
  sms: { verified: 'verifiedAt', opted_out: 'optedOutAt' },
  whatsapp: { verified: 'verifiedAt' },
  imessage: { verified: 'verifiedAt' },
};

function phoneOrFail(value: string, field: string): string {
  const phone = normalisePhone(value);
  if (!phone) throw ValidationFailedError.field(field, 'type', notAPhoneNumber(field));
  return phone;
}

function countryOrFail(given: string | undefined, phone: string, field: string): string {
  const country = given ?? countryOfPhone(phone);
  if (!country) {
    throw ValidationFailedError.field(
      field,
      'required',
      `${field} is required: it cannot be derived from this number`,
    );
  }
  return country.toUpperCase();
}

@Injectable()
export class ContactChannelsService {
  private readonly clock: Clock;

  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly repo: ContactChannelsRepository,
    private readonly contacts: ContactsRepository,
    private readonly events: ContactEvents,
    @Optional() clock?: Clock,
  ) {
    this.clock = clock ?? new SystemClock();
  }

  /** One record of the contact; 404 when it has none with that id. */
  async get<C extends ContactChannel>(
    orgId: OrgId,
    contactId: string,
    channel: C,
    recordId: string,
  ): Promise<ChannelRecordOf[C]> {
    const record = await this.repo.find(orgId, contactId, channel, recordId);
    if (!record) throw new NotFoundError(CHANNEL_INFO[channel].label);
    return record;
  }

  async create<C extends ContactChannel>(
    orgId: OrgId,
    contactId: string,
    channel: C,
    input: ChannelInputOf[C],
  ): Promise<ChannelRecordOf[C]> {
    const record = await inTransaction(this.ds, async (em) => {
      await this.lockContact(em, orgId, contactId);
      const inserted = await this.insertRecord(em, orgId, contactId, channel, input);
      await this.events.changed(em, orgId, contactId, 'contact.updated');
      return inserted;
    });
    this.events.wake();
    return record;
  }

  /**
   * Inserts one record inside the caller's transaction (contact creation uses it too). The first
   * record of a channel is primary unless the input says otherwise.
   */
  async insertRecord<C extends ContactChannel>(
    em: EntityManager,
    orgId: OrgId,
    contactId: string,
    channel: C,
    input: ChannelInputOf[C],
    fieldPrefix = '',
  ): Promise<ChannelRecordOf[C]> {
    const now = this.clock.now();
    const f = (name: string) => fieldPrefix + name;
    const isPrimary =
      input.isPrimary ?? (await this.repo.count(orgId, contactId, channel, em)) === 0;
    const base = { contactId, isPrimary };
    let values: ObjectLiteral;
    switch (channel) {
      case 'email': {
        const i = input as EmailInput;
        const email = i.email.trim();
        if (await this.contacts.emailTaken(orgId, blindIndexCandidatesOf('email', email), em))
          throw duplicateEmailConflict();
        const status = i.status ?? 'unverified';
        values = {
          ...base,
          email,
          status,
          bounceCount: 0,
          complaintCount: 0,
          verifiedAt: i.verifiedAt ?? (status === 'verified' ? now : null),
          lastBouncedAt: null,
          lastComplainedAt: null,
        };
        break;
      }
      case 'sms': {
        const i = input as SmsInput;
        const phone = phoneOrFail(i.phoneNumber, f('phoneNumber'));
        const status = i.status ?? 'unverified';
        values = {
          ...base,
          phoneNumber: phone,
          countryCode: countryOrFail(i.countryCode, phone, f('countryCode')),
          status,
          verifiedAt: i.verifiedAt ?? (status === 'verified' ? now : null),
          optedOutAt: i.optedOutAt ?? (status === 'opted_out' ? now : null),
        };
        break;
      }
      case 'whatsapp': {
        const i = input as WhatsappInput;
        const phone = phoneOrFail(i.phoneNumber, f('phoneNumber'));
        const status = i.status ?? 'unverified';
        values = {
          ...base,
          phoneNumber: phone,
          countryCode: countryOrFail(i.countryCode, phone, f('countryCode')),
          status,
          isBusinessAccount: i.isBusinessAccount ?? false,
          lastSeenAt: i.lastSeenAt ?? null,
          verifiedAt: i.verifiedAt ?? (status === 'verified' ? now : null),
        };
        break;
      }
      case 'telegram': {
        const i = input as TelegramInput;
        const phone = phoneOrFail(i.phoneNumber, f('phoneNumber'));
        values = {
          ...base,
          phoneNumber: phone,
          countryCode: countryOrFail(i.countryCode, phone, f('countryCode')),
          username: i.username?.trim() || null,
          status: i.status ?? 'active',
          lastActiveAt: i.lastActiveAt ?? null,
        };
        break;
      }
      case 'imessage': {
        const i = input as ImessageInput;
        const status = i.status ?? 'unverified';
        values = {
          ...base,
          appleId: i.appleId.trim(),
          phoneNumber: i.phoneNumber ? phoneOrFail(i.phoneNumber, f('phoneNumber')) : null,
          status,
          verifiedAt: i.verifiedAt ?? (status === 'verified' ? now : null),
        };
        break;
      }
      case 'push': {
        const i = input as PushInput;
        values = {
          ...base,
          deviceToken: i.deviceToken.trim(),
          platform: i.platform,
          status: i.status ?? 'active',
          appVersion: i.appVersion ?? null,
          deviceInfo: i.deviceInfo ?? null,
          lastUsedAt: i.lastUsedAt ?? null,
          expiresAt: i.expiresAt ?? null,
        };
        break;
      }
      default:
        throw new Error(`unknown channel ${String(channel)}`);
    }
    try {
      return await this.repo.insert(orgId, channel, values, em);
    } catch (err) {
      throw isDuplicateEmail(err) ? duplicateEmailConflict() : err;
    }
  }

  async update<C extends ContactChannel>(
    orgId: OrgId,
    contactId: string,
    channel: C,
    recordId: string,
    patch: ChannelPatchOf[C],
  ): Promise<ChannelRecordOf[C]> {
    const info = CHANNEL_INFO[channel];
    const updated = await inTransaction(this.ds, async (em) => {
      await this.lockContact(em, orgId, contactId);
      const record = (await this.repo.findForUpdate(
        orgId,
        contactId,
        channel,
        recordId,
        em,
      )) as ObjectLiteral | null;
      if (!record) throw new NotFoundError(info.label);
      const changes: ObjectLiteral = {};
      for (const [k, v] of Object.entries(patch)) if (v !== undefined) changes[k] = v;
      const stamp = changes.status ? STAMPS[channel]?.[changes.status as string] : undefined;
      if (stamp && record[stamp] === null && changes.status !== record.status) {
        changes[stamp] = this.clock.now();
      }
      const after = await this.repo.update(orgId, channel, recordId, changes, em);
      await this.events.changed(em, orgId, contactId, 'contact.updated');
      if (
        channel === 'push' &&
        record.status === 'active' &&
        (after.status === 'expired' || after.status === 'inactive')
      ) {
        await this.events.pushTokenInvalidated(em, orgId, after as ContactPush);
      }
      return after;
    });
    this.events.wake();
    return updated;
  }

  async delete(
    orgId: OrgId,
    contactId: string,
    channel: ContactChannel,
    recordId: string,
  ): Promise<void> {
    const info = CHANNEL_INFO[channel];
    await inTransaction(this.ds, async (em) => {
      await this.lockContact(em, orgId, contactId);
      if (!(await this.repo.delete(orgId, contactId, channel, recordId, em)))
        throw new NotFoundError(info.label);
      await this.events.changed(em, orgId, contactId, 'contact.updated');
    });
    this.events.wake();
  }

  /** 404 unless the contact is the organization's; keeps it from being deleted meanwhile. */
  private async lockContact(em: EntityManager, orgId: OrgId, contactId: string): Promise<void> {
    const found = await this.contacts.lock(orgId, [contactId], 'FOR KEY SHARE', em);
    if (!found.length) throw new NotFoundError('Contact');
  }
}
