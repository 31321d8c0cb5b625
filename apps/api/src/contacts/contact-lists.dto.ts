// Bodies and queries of the contact-list routes.
import {
  IsDefined,
  ArrayMaxSize,
  IsArray,
  IsIn,
  IsOptional,
  IsString,
  IsUUID,
  MaxLength,
  MinLength,
  ArrayMinSize,
} from 'class-validator';
import { CHANNELS, LIST_STATUSES, MEMBERSHIP_STATUSES } from '@app/domain';
import type { Channel, ListStatus, MembershipStatus } from '@app/domain';
import { PageQueryDto } from '../http/page-query.dto';
import { OptionalValue } from './contact-channels.dto';
import { TagNames } from './contact-rules.decorators';

class ListFieldsDto {
  @IsOptional()
  @IsString()
  @MaxLength(2000)
  description?: string | null;

  @OptionalValue()
  @IsIn(LIST_STATUSES)
  status?: ListStatus;

  /** Channels a campaign should prefer: email, sms, imessage, telegram, push, whatsapp. */
  @OptionalValue()
  @IsArray()
  @ArrayMaxSize(CHANNELS.length)
  @IsIn(CHANNELS, { each: true })
  preferredChannels?: Channel[];

  /** Tag names; replaces the list's tags. */
  @OptionalValue()
  @IsArray()
  @TagNames()
  tags?: string[];
}

export class CreateListDto extends ListFieldsDto {
  @IsDefined()
  @IsString()
  @MinLength(1)
  @MaxLength(200)
  name: string;
}

export class UpdateListDto extends ListFieldsDto {
  @OptionalValue()
  @IsString()
  @MinLength(1)
  @MaxLength(200)
  name?: string;
}

export class MembersQueryDto extends PageQueryDto {
  @IsOptional()
  @IsIn(MEMBERSHIP_STATUSES)
  status?: MembershipStatus;
}

export class SubscribeDto {
  @IsDefined()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(1000)
  @IsUUID('all', { each: true })
  contactIds: string[];
}

export class UnsubscribeDto {
  @IsOptional()
  @IsString()
  @MaxLength(500)
  reason?: string | null;
}
