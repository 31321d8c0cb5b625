// Provider accounts of an organization (§17): creation and change with each provider's fields
// checked, credentials encrypted and never answered, one default account per channel, a test send
// through the account's adapter, and the account's health from the provider's answers (`failing`
// after consecutive refusals of its credentials).
import { Inject, Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { Clock } from '../common/clock';
import type { OrgId } from '../common/org-id';
import { Page, PageRequest, pageOffset } from '../common/pagination';
import type { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { inTransaction } from '../database/transaction';
import { TargetNotAllowedError } from '../dns/target';
import {
  ConflictError,
  NotFoundError,
  ServiceUnavailableError,
  ValidationFailedError,
} from '../errors/domain-errors';
import type { ProviderName } from './channel-provider.entity';
import {
  ProviderAccountChange,
  ProviderAccountRecord,
  ChannelProviderRepository,
} from './channel-provider.repository';
import {
  checkProviderFields,
  DEFAULT_MAX_PER_SECOND,
  INVALID_URL,
  servesChannel,
  UrlField,
} from './channel-provider.rules';
import { checkTestMessage, TestMessageInput } from './test-message';
import type { ProviderAccount, ProviderChannel, SendOutcome } from './provider-adapter';
import { ProviderHttp, ProviderUnreachableError } from './provider-http';
import { ProviderRegistry } from './provider-registry';

/** Refusals of an account's credentials in a row after which it is `failing`. */
export const AUTH_FAILURES_BEFORE_FAILING = 3;
/** The DNS check of a URL at creation gives up after this long and accepts it; every send re-checks. */
const URL_LOOKUP_TIMEOUT_MS = 3000;

export interface NewProviderInput {
  channel: ProviderChannel;
  provider: ProviderName;
  name: string;
  credentials: unknown;
  settings?: unknown;
  isDefault?: boolean;
  maxPerSecond?: number;
}

export interface ProviderChangeInput {
  name?: string;
  credentials?: unknown;
  settings?: unknown;
  isDefault?: boolean;
  status?: 'active' | 'disabled';
  maxPerSecond?: number;
}

/** An account as created or changed: `secret` only when the `http` provider's was generated. */
export interface ProviderAccountResult {
  account: ProviderAccountRecord;
  secret?: string;
}

export interface TestSendResult {
  outcome: SendOutcome['kind'];
  providerMessageId: string | null;
  status: 'sent' | 'delivered' | null;
  code: string | null;
  message: string | null;
  retryAfterMs: number | null;
  /** The account's status after this answer. */
  providerStatus: ProviderAccountRecord['status'];
}

function checkName(raw: string): string {
  const name = typeof raw === 'string' ? raw.trim() : '';
  if (!name || name.length > 100) {
    throw ValidationFailedError.field('name', 'type', 'name must be 1 to 100 characters');
  }
  return name;
}

/** An account as an adapter takes it: its record's settings and its decrypted credentials. */
function asAccount(
  organizationId: OrgId,
  record: ProviderAccountRecord,
  credentials: Record<string, unknown>,
): ProviderAccount {
  const { id, channel, provider, settings } = record;
  return { id, organizationId, channel, provider, settings, credentials };
}

@Injectable()
export class ChannelProviderService {
  private readonly logger = new Logger(ChannelProviderService.name);

  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly repository: ChannelProviderRepository,
    private readonly registry: ProviderRegistry,
    private readonly http: ProviderHttp,
    private readonly clock: Clock,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** Creates the account; the channel's first account, or one asked to be, is its default. */
  async create(organizationId: OrgId, input: NewProviderInput): Promise<ProviderAccountResult> {
    if (!servesChannel(input.provider, input.channel)) {
      throw ValidationFailedError.field(
        'provider',
        'enum',
        `Provider ${input.provider} does not serve the ${input.channel} channel`,
      );
    }
    const name = checkName(input.name);
    const fields = checkProviderFields(input.provider, input.credentials, input.settings);
    await this.checkFields(fields.errors, fields.urls);
    const account = await inTransaction(this.ds, async (em) => {
      await this.repository.lockChannel(organizationId, input.channel, em);
      const isDefault =
        input.isDefault === true ||
        !(await this.repository.hasDefault(organizationId, input.channel, em));
      if (isDefault) await this.repository.clearDefault(organizationId, input.channel, em);
      const inserted = await this.repository.insert(
        organizationId,
        {
          channel: input.channel,
          provider: input.provider,
          name,
          settings: fields.settings,
          credentials: fields.credentials,
          isDefault,
          maxPerSecond: input.maxPerSecond ?? DEFAULT_MAX_PER_SECOND[input.provider],
        },
        this.clock.now(),
        em,
      );
      // Committed only once the provider knows where to post (Telegram's setWebhook).
      await this.register(asAccount(organizationId, inserted, fields.credentials));
      return inserted;
    });
    this.logger.log({
      msg: 'channel provider created',
      organizationId,
      providerId: account.id,
      channel: account.channel,
      provider: account.provider,
    });
    return { account, secret: fields.generatedSecret };
  }

  async list(
    organizationId: OrgId,
    filter: { channel?: ProviderChannel },
    req: PageRequest,
  ): Promise<Page<ProviderAccountRecord>> {
    const { items, total } = await this.repository.list(organizationId, filter, {
      offset: pageOffset(req),
      limit: req.limit,
    });
    return new Page(items, total, req);
  }

  async get(organizationId: OrgId, id: string): Promise<ProviderAccountRecord> {
    const account = await this.repository.get(organizationId, id);
    if (!account) throw new NotFoundError('Channel provider');
    return account;
  }

  /**
   * Changes the account: credentials and settings are replaced whole; `isDefault: true` moves the
   * channel's default here in one transaction (the default is moved, never cleared: false is a 422).
   */
  async update(
    organizationId: OrgId,
    id: string,
    input: ProviderChangeInput,
  ): Promise<ProviderAccountResult> {
    const current = await this.get(organizationId, id);
    if (input.isDefault === false) {
      throw ValidationFailedError.field(
        'isDefault',
        'enum',
        'isDefault can only be set to true: make another provider the default instead',
      );
    }
    const change: ProviderAccountChange = {
      name: input.name === undefined ? undefined : checkName(input.name),
      status: input.status,
      maxPerSecond: input.maxPerSecond,
      isDefault: input.isDefault ? true : undefined,
    };
    let secret: string | undefined;
    if (input.credentials !== undefined || input.settings !== undefined) {
      // Whichever is not replaced is checked as stored: settings may depend on credentials' kind.
      const credentials =
        input.credentials ?? (await this.repository.credentialsOf(organizationId, id));
      const fields = checkProviderFields(
        current.provider,
        credentials,
        input.settings ?? current.settings,
      );
      await this.checkFields(fields.errors, fields.urls);
      if (input.credentials !== undefined) change.credentials = fields.credentials;
      if (input.settings !== undefined) change.settings = fields.settings;
      secret = input.credentials !== undefined ? fields.generatedSecret : undefined;
    }
    const account = await inTransaction(this.ds, async (em) => {
      if (change.isDefault) {
        await this.repository.lockChannel(organizationId, current.channel, em);
        await this.repository.clearDefault(organizationId, current.channel, em);
      }
      const updated = await this.repository.update(
        organizationId,
        id,
        change,
        this.clock.now(),
        em,
      );
      if (updated && (change.credentials || change.settings)) {
        const stored = await this.repository.credentialsOf(organizationId, id, em);
        await this.register(asAccount(organizationId, updated, stored ?? {}));
      }
      return updated;
    });
    if (!account) throw new NotFoundError('Channel provider');
    this.logger.log({
      msg: 'channel provider changed',
      organizationId,
      providerId: id,
      fields: Object.keys(input).filter((k) => input[k as keyof ProviderChangeInput] !== undefined),
    });
    return { account, secret };
  }

  /**
   * Tells the provider where this account's callbacks go, for providers that must be told
   * (Telegram's setWebhook): a refusal is a 422 on `credentials`, no answer a 503.
   */
  private async register(account: ProviderAccount): Promise<void> {
    const adapter = this.registry.adapterFor(account.channel, account.provider);
    if (!adapter?.register) return;
    const url = `${this.config.publicBaseUrl}/channels/callbacks/${account.id}`;
    try {
      await adapter.register(account, url);
    } catch (err) {
      if (err instanceof ProviderUnreachableError) {
        throw new ServiceUnavailableError(`The provider could not be reached: ${err.message}`);
      }
      throw ValidationFailedError.field(
        'credentials',
        'type',
        `The provider refused to register the callback URL: ${(err as Error).message}`,
      );
    }
  }

  /** Removes the account; when it was the channel's default, its oldest other account takes over. */
  async remove(organizationId: OrgId, id: string): Promise<void> {
    const current = await this.get(organizationId, id);
    await inTransaction(this.ds, async (em) => {
      await this.repository.lockChannel(organizationId, current.channel, em);
      const removed = await this.repository.remove(organizationId, id, em);
      if (!removed) throw new NotFoundError('Channel provider');
      if (removed.isDefault)
        await this.repository.promoteOldest(organizationId, removed.channel, em);
    });
    this.logger.log({ msg: 'channel provider deleted', organizationId, providerId: id });
  }

  /** The account with its decrypted credentials, as an adapter takes it. */
  async account(organizationId: OrgId, id: string): Promise<ProviderAccount> {
    const record = await this.get(organizationId, id);
    const credentials = await this.repository.credentialsOf(organizationId, id);
    if (!credentials) throw new NotFoundError('Channel provider');
    return asAccount(organizationId, record, credentials);
  }

  /** The channel's default account, or null when the organization has connected none. */
  defaultAccount(organizationId: OrgId, channel: ProviderChannel) {
    return this.repository.defaultOf(organizationId, channel);
  }

  /**
   * Counts what a send's answer says of the credentials: `unauthorized` is one more refusal
   * (`failing` at AUTH_FAILURES_BEFORE_FAILING in a row); `accepted` or `rejected` means the
   * provider took them, and the count starts again. Throttled and unavailable say nothing of them.
   */
  async recordOutcome(
    organizationId: OrgId,
    id: string,
    outcome: SendOutcome,
  ): Promise<ProviderAccountRecord | null> {
    const now = this.clock.now();
    if (outcome.kind === 'unauthorized') {
      const after = await this.repository.recordAuthFailure(
        organizationId,
        id,
        AUTH_FAILURES_BEFORE_FAILING,
        now,
      );
      if (after?.status === 'failing') {
        this.logger.warn({
          msg: 'channel provider credentials refused',
          organizationId,
          providerId: id,
          consecutiveAuthFailures: after.consecutiveAuthFailures,
        });
      }
      return after;
    }
    if (outcome.kind === 'accepted' || outcome.kind === 'rejected') {
      return this.repository.recordAuthSuccess(organizationId, id, now);
    }
    return null;
  }

  /** Sends one message through the account now (not through the queue, not in the message log). */
  async test(organizationId: OrgId, id: string, input: TestMessageInput): Promise<TestSendResult> {
    const record = await this.get(organizationId, id);
    const message = checkTestMessage(record.channel, record.provider, input);
    if (record.status === 'disabled') throw new ConflictError('Provider is disabled');
    const adapter = this.registry.adapterFor(record.channel, record.provider);
    if (!adapter) throw new ConflictError(`Provider not supported yet: ${record.provider}`);
    const account = await this.account(organizationId, id);
    const outcome = await adapter.send(account, {
      reference: randomUUID(),
      ...message,
      statusCallbackUrl: `${this.config.publicBaseUrl}/channels/callbacks/${id}`,
    });
    const after = (await this.recordOutcome(organizationId, id, outcome)) ?? record;
    this.logger.log({
      msg: 'channel provider test send',
      organizationId,
      providerId: id,
      outcome: outcome.kind,
    });
    return {
      outcome: outcome.kind,
      providerMessageId: outcome.kind === 'accepted' ? outcome.providerMessageId : null,
      status: outcome.kind === 'accepted' ? outcome.status : null,
      code: outcome.kind === 'rejected' ? outcome.code : null,
      message: 'message' in outcome ? outcome.message : null,
      retryAfterMs: outcome.kind === 'throttled' ? outcome.retryAfterMs : null,
      providerStatus: after.status,
    };
  }

  /** Field errors, then the URLs the platform will connect to, checked like webhook targets. */
  private async checkFields(errors: ValidationFailedError['errors'], urls: UrlField[]) {
    if (errors.length) throw new ValidationFailedError(errors);
    if (this.config.webhookAllowPrivateTargets) return;
    const refused: ValidationFailedError['errors'] = [];
    await Promise.all(
      urls.map(async ({ field, url }) => {
        if (await this.isRefusedTarget(url))
          refused.push({ field, rule: 'url', message: INVALID_URL });
      }),
    );
    if (refused.length) throw new ValidationFailedError(refused);
  }

  /**
   * A literal private address or a name resolving to one is refused; a name that does not resolve
   * (yet) is accepted, as for webhook endpoints: every connection is checked again.
   */
  private async isRefusedTarget(url: URL): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        this.http.target(url.hostname),
        new Promise((resolve) => {
          timer = setTimeout(resolve, URL_LOOKUP_TIMEOUT_MS);
        }),
      ]);
      return false;
    } catch (err) {
      return err instanceof TargetNotAllowedError;
    } finally {
      clearTimeout(timer);
    }
  }
}
