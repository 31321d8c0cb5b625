// Sending domains of an organization (§13): creation with a new DKIM key within the plan's number
// of domains (§16), the records to publish with the status of each, checks of those records (on
// request and on the worker's schedule), and the rule that a name is verified by one organization
// at most.
import { Inject, Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { Clock } from '../common/clock';
import type { OrgId } from '../common/org-id';
import { Page, PageRequest, pageOffset } from '../common/pagination';
import type { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { inTransaction } from '../database/transaction';
import { DnsResolver } from '../dns/resolver';
import { ConflictError, NotFoundError, ValidationFailedError } from '../errors/domain-errors';
import type { Organization, Plan } from '../tenancy/organization.entity';
import { OrganizationService } from '../tenancy/organization.service';
import { DkimKeyGenerator } from './dkim-key';
import { checkRecord, DnsRecordSpec, recordsToPublish } from './dns-records';
import { normaliseDomainName } from './domain-name';
import { afterCheck, CHECK_WINDOW_MS, CheckOutcome, RECHECK_MS } from './domain-verification';
import type { SendingDomain } from './sending-domain.entity';
import { SendingDomainRepository } from './sending-domain.repository';
import { SendingDomainSweeper } from './sending-domain.sweeper';

export interface DnsRecordView extends DnsRecordSpec {
  status: 'pending' | 'verified' | 'failed';
  lastCheckedAt: Date | null;
}

export interface SendingDomainView {
  domain: SendingDomain;
  dnsRecords: DnsRecordView[];
}

/** Domains one worker run checks at most, and how many lookups run side by side. */
const CHECK_BATCH = 50;
const CHECK_PARALLEL = 10;
/** A claimed check not recorded by then (the worker died) is due again. */
const CLAIM_LEASE_MS = 5 * 60_000;

const TAKEN = 'This domain is verified by another organization';
const LIMIT_REACHED = 'Sending domain limit reached';

/** Sending domains an organization may hold, by plan (§16); organizations.max_sending_domains overrides. */
export const SENDING_DOMAIN_LIMITS: Record<Plan, number> = {
  free: 3,
  pro: 50,
  enterprise: 500,
};

export function sendingDomainLimit(org: Pick<Organization, 'plan' | 'maxSendingDomains'>): number {
  return org.maxSendingDomains ?? SENDING_DOMAIN_LIMITS[org.plan];
}

@Injectable()
export class SendingDomainService {
  private readonly logger = new Logger(SendingDomainService.name);

  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly repository: SendingDomainRepository,
    private readonly sweeper: SendingDomainSweeper,
    private readonly dns: DnsResolver,
    private readonly clock: Clock,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly organizations: OrganizationService,
    private readonly keys: DkimKeyGenerator,
  ) {}

  async create(organizationId: OrgId, input: { name: string }): Promise<SendingDomainView> {
    const name = normaliseDomainName(input.name);
    if (!name) {
      throw ValidationFailedError.field(
        'name',
        'type',
        'name must be a domain name such as example.com',
      );
    }
    const limit = sendingDomainLimit(await this.organizations.get(organizationId));
    // Before the key is made: an organization at its limit costs no key generation.
    if ((await this.repository.count(organizationId)) >= limit) {
      throw new ConflictError(LIMIT_REACHED);
    }
    const key = await this.keys.generate();
    const domain = await inTransaction(this.ds, async (em) => {
      await this.repository.lockCreations(organizationId, em);
      if ((await this.repository.count(organizationId, em)) >= limit) {
        throw new ConflictError(LIMIT_REACHED);
      }
      const now = this.clock.now();
      return this.repository.insert(
        organizationId,
        {
          name,
          dkimSelector: key.selector,
          dkimPublicKey: key.publicKey,
          dkimPrivateKey: key.privateKey,
          nextCheckAt: new Date(now.getTime() + RECHECK_MS),
          checkUntil: new Date(now.getTime() + CHECK_WINDOW_MS),
        },
        now,
        em,
      );
    });
    if (!domain) throw new ConflictError('A sending domain with this name already exists');
    this.logger.log({
      msg: 'sending domain created',
      organizationId,
      domainId: domain.id,
      keyMs: Math.round(key.endedAt - key.startedAt),
    });
    return this.view(domain);
  }

  async list(organizationId: OrgId, req: PageRequest): Promise<Page<SendingDomainView>> {
    const { items, total } = await this.repository.list(organizationId, {
      offset: pageOffset(req),
      limit: req.limit,
    });
    return new Page(
      items.map((d) => this.view(d)),
      total,
      req,
    );
  }

  async get(organizationId: OrgId, id: string): Promise<SendingDomainView> {
    return this.view(await this.find(organizationId, id));
  }

  /** Checks the records now; 409 when another organization holds the name verified. */
  async verify(organizationId: OrgId, id: string): Promise<SendingDomainView> {
    const domain = await this.find(organizationId, id);
    if (await this.repository.verifiedElsewhere(organizationId, domain.name)) {
      throw new ConflictError(TAKEN);
    }
    const checked = await this.check(domain, true);
    if (checked === 'taken') throw new ConflictError(TAKEN);
    if (!checked) throw new NotFoundError('Sending domain');
    return this.view(checked);
  }

  /** Removes the domain: from the next message on, mail From it is neither signed nor allowed. */
  async remove(organizationId: OrgId, id: string): Promise<void> {
    if (!(await this.repository.remove(organizationId, id))) {
      throw new NotFoundError('Sending domain');
    }
    this.logger.log({ msg: 'sending domain deleted', organizationId, domainId: id });
  }

  /**
   * Whether some organization has verified this domain with its return-path record: mail to
   * `bounces.<domain>` is then ours (§14).
   */
  isVerifiedReturnDomain(name: string): Promise<boolean> {
    return this.repository.isVerifiedReturnDomain(name);
  }

  /** The worker's run: checks every domain due (in batches); answers how many were checked. */
  async checkDue(): Promise<number> {
    let checked = 0;
    for (;;) {
      const due = await this.sweeper.claimDue(this.clock.now(), CHECK_BATCH, CLAIM_LEASE_MS);
      for (let i = 0; i < due.length; i += CHECK_PARALLEL) {
        await Promise.all(
          due
            .slice(i, i + CHECK_PARALLEL)
            .map((d) =>
              this.check(d, false).catch((err: Error) =>
                this.logger.warn({ msg: 'domain check failed', domainId: d.id, err: err.message }),
              ),
            ),
        );
      }
      checked += due.length;
      if (due.length < CHECK_BATCH) return checked;
    }
  }

  private async find(organizationId: OrgId, id: string): Promise<SendingDomain> {
    const domain = await this.repository.get(organizationId, id);
    if (!domain) throw new NotFoundError('Sending domain');
    return domain;
  }

  /** Looks every record up, applies the rule, stores the outcome. */
  private async check(
    domain: SendingDomain,
    manual: boolean,
  ): Promise<SendingDomain | null | 'taken'> {
    const specs = this.records(domain);
    const expected = {
      publicKey: domain.dkimPublicKey,
      spfInclude: this.config.sendingDomains.spfInclude,
    };
    const results = await Promise.all(specs.map((s) => checkRecord(this.dns, s, expected)));
    const records = specs.map((s, i) => ({
      purpose: s.purpose,
      required: s.required,
      result: results[i],
    }));
    const now = this.clock.now();
    let outcome: CheckOutcome = afterCheck(domain, records, now, manual);
    if (
      outcome.matched &&
      (await this.repository.verifiedElsewhere(domain.organizationId, domain.name))
    ) {
      // The records are right, but the name is another organization's: not verified here.
      const held = afterCheck(
        domain,
        records.map((r) => (r.required ? { ...r, result: 'failed' as const } : r)),
        now,
        manual,
      );
      outcome = { ...held, recordChecks: outcome.recordChecks };
    }
    const stored = await this.repository.recordCheck(
      domain.organizationId,
      domain.id,
      outcome,
      now,
    );
    if (stored && stored !== 'taken' && stored.status !== domain.status) {
      this.logger.log({
        msg: 'sending domain status changed',
        organizationId: domain.organizationId,
        domainId: domain.id,
        from: domain.status,
        to: stored.status,
      });
    }
    return stored;
  }

  private records(domain: SendingDomain): DnsRecordSpec[] {
    return recordsToPublish(domain, this.config.sendingDomains);
  }

  private view(domain: SendingDomain): SendingDomainView {
    return {
      domain,
      dnsRecords: this.records(domain).map((spec) => {
        const last = domain.recordChecks[spec.purpose];
        return {
          ...spec,
          status: last?.status ?? 'pending',
          lastCheckedAt: last ? new Date(last.checkedAt) : null,
        };
      }),
    };
  }
}
