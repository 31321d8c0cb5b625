// Where import files live in the object store (§16, §18): keys `imports/<org>/incoming/…` for
// uploads streaming in and `imports/<org>/<import>/…` for an import's source and errors file.
import { Injectable } from '@nestjs/common';
import type { OrgId } from '../common/org-id';
import { ObjectStore } from '../storage/object-store';
import type { ByteSource } from './csv-file';

/** §7: uploads up to 200 MB. */
export const IMPORT_MAX_BYTES = 200 * 1024 * 1024;

@Injectable()
export class ImportStorage {
  constructor(readonly objects: ObjectStore) {}

  /** Where an upload is streamed before it becomes an import. */
  incomingKey(orgId: OrgId, reservationId: string): string {
    return `imports/${orgId}/incoming/${reservationId}.part`;
  }

  private importPrefix(orgId: OrgId, importId: string): string {
    return `imports/${orgId}/${importId}/`;
  }

  sourcePath(orgId: OrgId, importId: string): string {
    return `${this.importPrefix(orgId, importId)}source.csv`;
  }

  /** The errors file of an ended import (its parts compacted into one object). */
  errorsPath(orgId: OrgId, importId: string): string {
    return `${this.importPrefix(orgId, importId)}errors.csv`;
  }

  /** The errors file of a running import, a part per batch (ErrorsFile). */
  errorsPartsPath(orgId: OrgId, importId: string): string {
    return `${this.importPrefix(orgId, importId)}errors/`;
  }

  /** Reads of one stored file, as the CSV reader takes them. */
  bytes(key: string): ByteSource {
    return (range) => this.objects.read(key, range);
  }

  async removeSource(orgId: OrgId, importId: string): Promise<void> {
    await this.objects.delete(this.sourcePath(orgId, importId));
  }

  async removeErrorsParts(orgId: OrgId, importId: string): Promise<void> {
    await this.objects.deletePrefix(this.errorsPartsPath(orgId, importId));
  }

  /**
   * The files an ended import no longer needs: with no errors file to keep, all of them; else its
   * source, and the parts of its run once they are compacted into `errorsPath`.
   */
  async removeEnded(orgId: OrgId, importId: string, errorsPath: string | null): Promise<void> {
    if (!errorsPath) return this.removeImport(orgId, importId);
    await this.removeSource(orgId, importId);
    if (errorsPath !== this.errorsPartsPath(orgId, importId))
      await this.removeErrorsParts(orgId, importId);
  }

  /** Removes every file of the import (source and errors file). */
  async removeImport(orgId: OrgId, importId: string): Promise<void> {
    await this.objects.deletePrefix(this.importPrefix(orgId, importId));
  }

  /**
   * Removes every organization's incoming files last written before `before`: uploads whose
   * process died mid-stream (a live upload writes every few milliseconds).
   */
  async removeStaleIncoming(before: Date): Promise<number> {
    let removed = 0;
    for (const o of await this.objects.list('imports/')) {
      if (/^imports\/[^/]+\/incoming\//.test(o.key) && o.lastModified < before) {
        await this.objects.delete(o.key);
        removed++;
      }
    }
    return removed;
  }
}
