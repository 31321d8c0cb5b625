// Each organization's verified sending domains, read once per process and kept until PostgreSQL
// says they changed (NOTIFY `sending_domain_changed` with the organization id, from the table's
// trigger): the send policy and the worker's signer look a From domain up for every message, and
// that costs no query. The same discipline as the organization cache: nothing is served from the
// cache while the LISTEN connection is down, and a read a notification overtook is not stored.
import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { createPrivateKey, KeyObject } from 'node:crypto';
import { DataSource } from 'typeorm';
import { fieldCipher } from '../crypto/field-encryption';
import { PgListener } from '../database/pg-listener';
import { selfAndParents } from './domain-name';
import { SendingDomainRepository, VerifiedDomainRow } from './sending-domain.repository';

export const SENDING_DOMAIN_CHANGED_CHANNEL = 'sending_domain_changed';
const MAX_ENTRIES = 10_000;
/** A safety net only: entries are read again after this long even without a notification. */
const MAX_AGE_MS = 10 * 60_000;

/** A verified domain of an organization, as signing and the envelope sender use it. */
export interface VerifiedDomain {
  id: string;
  name: string;
  selector: string;
  /** `bounces.<name>` points at the platform: it can be the return host. */
  returnPathVerified: boolean;
  /**
   * The DKIM private key, decrypted and parsed on first use. A KeyObject, not the PEM: parsing a
   * PEM costs about three times the RSA signature itself, and nodemailer would parse it for every
   * message; a KeyObject crosses to the SMTP thread without being parsed again.
   */
  privateKey(): KeyObject;
}

function toVerified(row: VerifiedDomainRow): VerifiedDomain {
  let key: KeyObject | undefined;
  return {
    id: row.id,
    name: row.name,
    selector: row.selector,
    returnPathVerified: row.returnPathVerified,
    privateKey: () => (key ??= createPrivateKey(fieldCipher().decrypt(row.privateKey))),
  };
}

@Injectable()
export class VerifiedDomains implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(VerifiedDomains.name);
  private readonly entries = new Map<
    string,
    { domains: Map<string, VerifiedDomain>; at: number }
  >();
  private generation = 0;
  private listening = false;
  private readonly listener: PgListener;

  constructor(
    @InjectDataSource() ds: DataSource,
    private readonly repository: SendingDomainRepository,
  ) {
    this.listener = new PgListener(
      (ds.options as { url?: string }).url,
      SENDING_DOMAIN_CHANGED_CHANNEL,
      {
        notified: (organizationId) => organizationId && this.forget(organizationId),
        up: () => (this.listening = true),
        down: () => this.forgetAll(),
      },
      this.logger,
    );
  }

  async onApplicationBootstrap(): Promise<void> {
    await this.listener.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.listener.stop();
    this.forgetAll();
  }

  /**
   * The verified domain `domain` is, or is under (the most specific one), of the organization;
   * null when there is none. `domain` is normalised (domain-name.ts).
   */
  async match(organizationId: string, domain: string): Promise<VerifiedDomain | null> {
    const domains = await this.of(organizationId);
    if (!domains.size) return null;
    for (const name of selfAndParents(domain)) {
      const hit = domains.get(name);
      if (hit) return hit;
    }
    return null;
  }

  private async of(organizationId: string): Promise<Map<string, VerifiedDomain>> {
    const hit = this.entries.get(organizationId);
    if (hit && this.listening && Date.now() - hit.at < MAX_AGE_MS) return hit.domains;
    const generation = this.generation;
    const rows = await this.repository.verifiedOf(organizationId);
    const domains = new Map(rows.map((r) => [r.name, toVerified(r)]));
    if (this.listening && generation === this.generation) {
      if (this.entries.size >= MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value!);
      this.entries.set(organizationId, { domains, at: Date.now() });
    }
    return domains;
  }

  private forget(organizationId: string): void {
    this.generation++;
    this.entries.delete(organizationId);
  }

  private forgetAll(): void {
    this.listening = false;
    this.generation++;
    this.entries.clear();
  }
}
