// The provider accounts the send path and the worker use (§17): which account a message goes out
// through, and an account with its decrypted credentials for sending, kept for a few seconds so a
// stream of messages does not read and decrypt it once each.
import { Injectable } from '@nestjs/common';
import { Clock } from '../common/clock';
import type { OrgId } from '../common/org-id';
import { NotFoundError, ValidationFailedError } from '../errors/domain-errors';
import type { PushPlatform } from '../contacts/contact-channels.entity';
import { ChannelProviderRepository, ProviderAccountRecord } from './channel-provider.repository';
import type { ProviderAccount, ProviderChannel } from './provider-adapter';

/** How long a worker sends with an account as read: a change of it applies within this. */
export const ACCOUNT_CACHE_MS = 5000;

export interface SendingAccount {
  record: ProviderAccountRecord;
  account: ProviderAccount;
}

@Injectable()
export class ProviderAccounts {
  private readonly cache = new Map<string, { at: number; value: SendingAccount | null }>();

  constructor(
    private readonly repository: ChannelProviderRepository,
    private readonly clock: Clock,
  ) {}

  /**
   * The account a new message goes out through: the one named (the organization's, of this
   * channel, not disabled), else the channel's default; a push to an iOS device goes through an
   * APNs account when the organization has one, else through FCM. A 422 naming `providerId` when
   * there is none.
   */
  async choose(
    organizationId: OrgId,
    channel: ProviderChannel,
    providerId: string | undefined,
    platform?: PushPlatform,
  ): Promise<ProviderAccountRecord> {
    if (providerId) {
      const named = await this.repository.get(organizationId, providerId);
      if (!named) throw new NotFoundError('Channel provider');
      if (named.channel !== channel) {
        throw ValidationFailedError.field('providerId', 'type', `Not a ${channel} provider`);
      }
      if (named.status === 'disabled') {
        throw ValidationFailedError.field('providerId', 'type', 'The provider is disabled');
      }
      return named;
    }
    const sendable = await this.repository.sendableOf(organizationId, channel);
    const pick =
      channel === 'push'
        ? platform === 'ios'
          ? (sendable.find((a) => a.provider === 'apns') ??
            sendable.find((a) => a.provider === 'fcm'))
          : sendable.find((a) => a.provider === 'fcm')
        : sendable[0];
    if (!pick) {
      throw ValidationFailedError.field(
        'providerId',
        'required',
        `No active ${channel} provider is connected${platform ? ` for ${platform} devices` : ''}`,
      );
    }
    return pick;
  }

  /** The organization of an account a provider callback names, or null when there is none. */
  organizationOf(id: string): Promise<OrgId | null> {
    return this.repository.organizationOf(id);
  }

  /** The account with its credentials, as read at most ACCOUNT_CACHE_MS ago; null when gone. */
  async forSending(organizationId: OrgId, id: string): Promise<SendingAccount | null> {
    const now = this.clock.now().getTime();
    const key = `${organizationId}/${id}`;
    const kept = this.cache.get(key);
    if (kept && now - kept.at < ACCOUNT_CACHE_MS) return kept.value;
    const record = await this.repository.get(organizationId, id);
    const credentials = record && (await this.repository.credentialsOf(organizationId, id));
    const value =
      record && credentials
        ? {
            record,
            account: {
              id,
              organizationId,
              channel: record.channel,
              provider: record.provider,
              settings: record.settings,
              credentials,
            },
          }
        : null;
    if (this.cache.size > 1000) this.cache.clear();
    this.cache.set(key, { at: now, value });
    return value;
  }
}
