// Which adapter serves a provider account (§17): one adapter per channel and provider name, listed
// once in ChannelsModule under PROVIDER_ADAPTERS.
import { Inject, Injectable } from '@nestjs/common';
import type { ProviderAdapter, ProviderChannel } from './provider-adapter';

/** The Nest token of the adapter list (an array of ProviderAdapter). */
export const PROVIDER_ADAPTERS = Symbol('PROVIDER_ADAPTERS');

@Injectable()
export class ProviderRegistry {
  private readonly byKey = new Map<string, ProviderAdapter>();

  constructor(@Inject(PROVIDER_ADAPTERS) adapters: ProviderAdapter[]) {
    for (const a of adapters) {
      const key = `${a.channel}/${a.provider}`;
      if (this.byKey.has(key)) throw new Error(`Two provider adapters for ${key}`);
      this.byKey.set(key, a);
    }
  }

  /** The adapter of a channel's provider, or null when the platform has none yet. */
  adapterFor(channel: ProviderChannel, provider: string): ProviderAdapter | null {
    return this.byKey.get(`${channel}/${provider}`) ?? null;
  }
}
