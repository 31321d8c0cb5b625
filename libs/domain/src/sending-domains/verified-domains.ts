// Each organization's verified sending domains, read once per process and kept until PostgreSQL
// says they changed (NOTIFY `sending_domain_changed` with the organization id, from the table's
// trigger): the send policy and the worker's signer look a From domain up for every message, and
// that costs no query (database/notified-cache.ts).
import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { createPrivateKey, KeyObject } from 'node:crypto';
import { DataSource } from 'typeorm';
import type { OrgId } from '../common/org-id';
import { fieldCipher } from '../crypto/field-encryption';
import { NotifiedCache } from '../database/notified-cache';
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
  private readonly cache: NotifiedCache<Map<string, VerifiedDomain>, OrgId>;

  constructor(@InjectDataSource() ds: DataSource, repository: SendingDomainRepository) {
    this.cache = new NotifiedCache({
      connectionString: (ds.options as { url?: string }).url,
      channel: SENDING_DOMAIN_CHANGED_CHANNEL,
      load: async (organizationId) =>
        new Map((await repository.verifiedOf(organizationId)).map((r) => [r.name, toVerified(r)])),
      logger: new Logger(VerifiedDomains.name),
      maxEntries: MAX_ENTRIES,
      maxAgeMs: MAX_AGE_MS,
    });
  }

  onApplicationBootstrap(): Promise<void> {
    return this.cache.start();
  }

  onApplicationShutdown(): Promise<void> {
    return this.cache.stop();
  }

  /**
   * The verified domain `domain` is, or is under (the most specific one), of the organization;
   * null when there is none. `domain` is normalised (domain-name.ts).
   */
  async match(organizationId: OrgId, domain: string): Promise<VerifiedDomain | null> {
    const domains = await this.cache.get(organizationId);
    if (!domains.size) return null;
    for (const name of selfAndParents(domain)) {
      const hit = domains.get(name);
      if (hit) return hit;
    }
    return null;
  }
}
