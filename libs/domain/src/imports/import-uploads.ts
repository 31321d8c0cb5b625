// Receiving an upload within the organization's import storage quota (§16).
import { Inject, Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import { DataSource, EntityManager } from 'typeorm';
import type { OrgId } from '../common/org-id';
import type { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { PayloadTooLargeError } from '../errors/domain-errors';
import { ImportFilesRepository } from './import-files.repository';
import { IMPORT_MAX_BYTES, ImportStorage } from './import-storage';

/** Quota reserved ahead of what is written: a 200 MB upload takes about 200 reservations (a few ms each); near the quota, an upload under way holds at most this much it may not use. */
const RESERVE_AHEAD = 1024 * 1024;
/** A reservation that has not grown for this long belongs to an upload that died. */
const RESERVATION_TTL_SECONDS = 600;

/** An upload stored, still holding its reservation until it becomes an import. */
export interface ReceivedUpload {
  /** Its key in the object store. */
  path: string;
  bytes: number;
  reservationId: string;
}

const mb = (bytes: number) => `${(bytes / (1024 * 1024)).toFixed(1)} MB`;

export function fileTooLarge(): PayloadTooLargeError {
  return new PayloadTooLargeError('The file is larger than 200 MB', 'file');
}

/**
 * The stream is written to the organization's incoming key, and quota is reserved in PostgreSQL
 * before the bytes that need it are written, so an upload over the quota stops at the quota, not
 * at its end.
 */
@Injectable()
export class ImportUploads {
  private readonly logger = new Logger(ImportUploads.name);
  private readonly quota: number;

  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly repo: ImportFilesRepository,
    private readonly storage: ImportStorage,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.quota = config.imports.storageQuotaBytes;
  }

  /**
   * Streams `source` into a new key of the organization's incoming folder. Refused with 413 on
   * `file` (the partial file removed, the reservation released) once it passes 200 MB or the
   * organization's quota.
   */
  async receive(orgId: OrgId, source: Readable): Promise<ReceivedUpload> {
    const reservationId = randomUUID();
    const key = this.storage.incomingKey(orgId, reservationId);
    const count = { bytes: 0 };
    try {
      const checked = this.withinLimits(orgId, reservationId, source, count);
      await this.storage.objects.write(key, Readable.from(checked));
    } catch (err) {
      source.resume();
      await this.discard(orgId, key, reservationId);
      throw err;
    }
    return { path: key, bytes: count.bytes, reservationId };
  }

  /** The chunks of `source`, each let through once its bytes are within the limits. */
  private async *withinLimits(
    orgId: OrgId,
    reservationId: string,
    source: Readable,
    count: { bytes: number },
  ): AsyncGenerator<Buffer> {
    let granted = 0;
    // A refusal leaves `source` alive and drains it: destroyed (as pipeline() or a plain
    // for-await would), multer takes that as its own error and may answer before the partial
    // file is removed, or with another status.
    for await (const chunk of source.iterator({
      destroyOnReturn: false,
    }) as AsyncIterable<Buffer>) {
      const need = count.bytes + chunk.length;
      if (need > IMPORT_MAX_BYTES) throw fileTooLarge();
      if (need > granted) granted = await this.reserve(orgId, reservationId, need);
      count.bytes = need;
      yield chunk;
    }
  }

  /** Removes an upload that will not become an import, and its reservation. */
  async discard(orgId: OrgId, key: string, reservationId: string): Promise<void> {
    await this.storage.objects.delete(key);
    await this.release(orgId, reservationId);
  }

  /**
   * Bytes of import files the organization holds: sources still stored, errors files, and what
   * uploads under way have reserved.
   */
  usage(orgId: OrgId, em?: EntityManager, except?: string): Promise<number> {
    return this.repo.usage(orgId, em, except);
  }

  /**
   * Grows the upload's reservation to cover `need` bytes (and up to RESERVE_AHEAD more while the
   * quota allows); returns the bytes reserved. Reservations of one organization are taken one at
   * a time (a transaction-scoped advisory lock), so concurrent uploads together never reserve
   * more than the quota.
   */
  private reserve(orgId: OrgId, reservationId: string, need: number): Promise<number> {
    return this.ds.transaction(async (em) => {
      await this.repo.lockReservations(orgId, em);
      const used = await this.usage(orgId, em, reservationId);
      const free = this.quota - used;
      if (free < need) {
        throw new PayloadTooLargeError(
          `This upload would take the organization's import files over their storage quota of ` +
            `${mb(this.quota)} (${mb(used)} in use); delete finished imports to free space`,
          'file',
        );
      }
      const bytes = Math.min(need + RESERVE_AHEAD, free);
      await this.repo.reserve(orgId, reservationId, bytes, RESERVATION_TTL_SECONDS, em);
      return bytes;
    });
  }

  /**
   * Drops a reservation, in `em` when the upload becomes an import in the same transaction (its
   * bytes then count through the import's file size).
   */
  async release(orgId: OrgId, reservationId: string, em?: EntityManager): Promise<void> {
    if (em) {
      await this.repo.release(orgId, reservationId, em);
      return;
    }
    // Best effort: a reservation left behind stops counting when it expires.
    await this.repo.release(orgId, reservationId).catch((err: Error) => {
      this.logger.warn({ msg: 'import upload reservation not released', err: err.message });
    });
  }
}
