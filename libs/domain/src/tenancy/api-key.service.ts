// API keys (§3): issued once, stored as SHA-256, resolved per request through a short cache.
import { Inject, Injectable, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import type { OrgId } from '../common/org-id';
import { Page, PageRequest } from '../common/pagination';
import { generateApiKey, isWellFormedApiKey, sha256Hex } from '../crypto/tokens';
import { NotFoundError, ValidationFailedError } from '../errors/domain-errors';
import { closeRedis, type RedisClient } from '../redis/redis-client';
import { REDIS } from '../redis/redis.module';
import { ApiKey } from './api-key.entity';
import { ApiKeyRepository } from './api-key.repository';
import {
  assertChangeAllowed,
  assertRevokeAllowed,
  DEFAULT_PER_MINUTE,
  grantForNewKey,
  KeyGrant,
} from './key-grants';
import { SCOPES, Scope } from './scopes';

export interface CreateApiKeyInput {
  name: string;
  scopes: string[] | 'all';
  rateLimitPerMinute?: number;
  rateLimitPerDay?: number | null;
  expiresAt?: Date | null;
}

export type UpdateApiKeyInput = Partial<Omit<CreateApiKeyInput, 'scopes'>> & { scopes?: string[] };

export interface ResolvedKey {
  id: string;
  organizationId: OrgId;
  scopes: Scope[];
  rateLimitPerMinute: number;
  rateLimitPerDay: number | null;
  expiresAt: Date | null;
  revokedAt: Date | null;
}

const CACHE_TTL_MS = 10_000;
const LAST_USED_EVERY_MS = 60_000;
const INVALIDATE_CHANNEL = 'api-keys:invalidate';

/**
 * Every replica drops its cache on a revocation or change (Redis pub/sub), so a revoked key stops
 * at once. A key that manages keys grants at most what it holds (./key-grants).
 */
@Injectable()
export class ApiKeyService implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(ApiKeyService.name);
  private readonly cache = new Map<string, { key: ResolvedKey | null; until: number }>();
  /**
   * Bumped by every invalidation: a database read that started before one may hold the row as it
   * was before a revocation, so it is not stored (the next request reads again).
   */
  private generation = 0;
  /** The invalidation channel is subscribed; while it is not, invalidations would be missed. */
  private listening = false;
  private readonly lastUsedWritten = new Map<string, number>();
  private subscriber?: RedisClient;

  constructor(
    private readonly keys: ApiKeyRepository,
    @Inject(REDIS) private readonly redis: RedisClient,
  ) {}

  async onModuleInit(): Promise<void> {
    this.subscriber = this.redis.duplicate();
    this.subscriber.on('message', () => this.dropCache());
    // Messages sent while the connection is down are lost: the cache is bypassed until the
    // channel is subscribed again, then emptied.
    this.subscriber.on('close', () => (this.listening = false));
    this.subscriber.on('ready', () => void this.listen());
    this.subscriber.on('error', (e) =>
      this.logger.warn({ msg: 'key invalidation channel error', err: e.message }),
    );
    await this.listen();
  }

  private async listen(): Promise<void> {
    try {
      await this.subscriber?.subscribe(INVALIDATE_CHANNEL);
    } catch {
      return; // tried again at the next 'ready'
    }
    this.dropCache();
    this.listening = true;
  }

  private dropCache(): void {
    this.generation++;
    this.cache.clear();
  }

  async onModuleDestroy(): Promise<void> {
    if (this.subscriber) await closeRedis(this.subscriber);
  }

  private validateScopes(scopes: string[]): Scope[] {
    const unknown = scopes.filter((s) => !(SCOPES as readonly string[]).includes(s));
    if (unknown.length) {
      throw ValidationFailedError.field('scopes', 'enum', `Unknown scope: ${unknown.join(', ')}`);
    }
    if (!scopes.length)
      throw ValidationFailedError.field('scopes', 'required', 'At least one scope is required');
    return [...new Set(scopes)] as Scope[];
  }

  /**
   * `byKeyId`: the API key making the request, held to what it holds (§16); absent for owner and
   * admin access tokens and the operator CLI.
   */
  async create(
    organizationId: OrgId,
    input: CreateApiKeyInput,
    byKeyId?: string,
  ): Promise<{ key: ApiKey; value: string }> {
    const scopes = input.scopes === 'all' ? [...SCOPES] : this.validateScopes(input.scopes);
    if (byKeyId !== undefined) {
      const caller = await this.grantOf(organizationId, byKeyId);
      input = { ...input, ...grantForNewKey(caller, { ...input, scopes }) };
    }
    const value = generateApiKey();
    const id = await this.keys.insert(organizationId, {
      name: input.name,
      keyHash: sha256Hex(value),
      keyPrefix: value.slice(0, 12),
      scopes,
      rateLimitPerMinute: input.rateLimitPerMinute ?? DEFAULT_PER_MINUTE,
      rateLimitPerDay: input.rateLimitPerDay ?? null,
      expiresAt: input.expiresAt ?? null,
      revokedAt: null,
      lastUsedAt: null,
    });
    const key = await this.get(organizationId, id);
    return { key, value };
  }

  async list(organizationId: OrgId, page: PageRequest): Promise<Page<ApiKey>> {
    const [items, total] = await this.keys.list(organizationId, page);
    return new Page(items, total, page);
  }

  async get(organizationId: OrgId, id: string): Promise<ApiKey> {
    const key = await this.keys.find(organizationId, id);
    if (!key) throw new NotFoundError('API key');
    return key;
  }

  async update(
    organizationId: OrgId,
    id: string,
    input: UpdateApiKeyInput,
    byKeyId?: string,
  ): Promise<ApiKey> {
    const target = await this.get(organizationId, id);
    const scopes = input.scopes === undefined ? undefined : this.validateScopes(input.scopes);
    if (byKeyId !== undefined) {
      const caller = await this.grantOf(organizationId, byKeyId);
      assertChangeAllowed(caller, toGrant(target), { ...input, scopes });
    }
    const patch: Partial<ApiKey> = {};
    if (input.name !== undefined) patch.name = input.name;
    if (scopes !== undefined) patch.scopes = scopes;
    if (input.rateLimitPerMinute !== undefined) patch.rateLimitPerMinute = input.rateLimitPerMinute;
    if (input.rateLimitPerDay !== undefined) patch.rateLimitPerDay = input.rateLimitPerDay;
    if (input.expiresAt !== undefined) patch.expiresAt = input.expiresAt;
    if (Object.keys(patch).length) await this.keys.update(organizationId, id, patch);
    await this.invalidate();
    return this.get(organizationId, id);
  }

  async revoke(organizationId: OrgId, id: string, byKeyId?: string): Promise<ApiKey> {
    const target = await this.get(organizationId, id);
    if (byKeyId !== undefined) {
      assertRevokeAllowed(await this.grantOf(organizationId, byKeyId), toGrant(target));
    }
    await this.keys.revoke(organizationId, id, new Date());
    await this.invalidate();
    return this.get(organizationId, id);
  }

  /** Revoke by id without an organization: the operator CLI only. */
  async revokeById(id: string): Promise<ApiKey> {
    const organizationId = await this.keys.organizationOf(id);
    if (!organizationId) throw new NotFoundError('API key');
    return this.revoke(organizationId, id);
  }

  /** The calling key as stored now (not as cached): what it may grant. */
  private async grantOf(organizationId: OrgId, keyId: string): Promise<KeyGrant> {
    return toGrant(await this.get(organizationId, keyId));
  }

  private async invalidate(): Promise<void> {
    this.dropCache();
    await this.redis
      .publish(INVALIDATE_CHANNEL, '1')
      .catch((e: Error) =>
        this.logger.warn({ msg: 'could not publish key invalidation', err: e.message }),
      );
  }

  /**
   * The key record for a presented value, or null when it is unknown. Revocation and expiry are
   * the caller's to judge (both mean 401). Malformed values never reach the database.
   */
  async resolve(value: string, now = new Date()): Promise<ResolvedKey | null> {
    if (!isWellFormedApiKey(value)) return null;
    const hash = sha256Hex(value);
    const cached = this.listening ? this.cache.get(hash) : undefined;
    let key: ResolvedKey | null;
    if (cached && cached.until > now.getTime()) {
      key = cached.key;
    } else {
      const generation = this.generation;
      const row = await this.keys.findByHash(hash);
      key = row ? { ...row, scopes: row.scopes as Scope[] } : null;
      if (this.listening && generation === this.generation) {
        if (this.cache.size > 10_000) this.cache.clear();
        this.cache.set(hash, { key, until: now.getTime() + CACHE_TTL_MS });
      }
    }
    if (key && !key.revokedAt) this.touch(key, now);
    return key;
  }

  /** lastUsedAt is written at most once a minute per key, off the request path. */
  private touch(key: ResolvedKey, now: Date): void {
    const last = this.lastUsedWritten.get(key.id) ?? 0;
    if (now.getTime() - last < LAST_USED_EVERY_MS) return;
    this.lastUsedWritten.set(key.id, now.getTime());
    this.keys
      .touchLastUsed(key.organizationId, key.id, now)
      .catch((e: Error) => this.logger.warn({ msg: 'could not record key use', err: e.message }));
  }
}

function toGrant(k: ApiKey): KeyGrant {
  return {
    id: k.id,
    scopes: k.scopes as Scope[],
    rateLimitPerMinute: k.rateLimitPerMinute,
    rateLimitPerDay: k.rateLimitPerDay,
    expiresAt: k.expiresAt,
  };
}
