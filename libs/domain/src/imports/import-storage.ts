// Where import files live (DATA_DIR/imports/<org>/...): 0600 files in 0700 folders (§16).
import { Inject, Injectable } from '@nestjs/common';
import { chmod, mkdir, readdir, rm, stat } from 'node:fs/promises';
import { join, resolve, sep } from 'node:path';
import type { OrgId } from '../common/org-id';
import type { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';

/** §7: uploads up to 200 MB. */
export const IMPORT_MAX_BYTES = 200 * 1024 * 1024;

/** Mode of every import file (owner read and write only). */
export const IMPORT_FILE_MODE = 0o600;
/** Mode of the folders holding them. */
export const IMPORT_DIR_MODE = 0o700;

@Injectable()
export class ImportStorage {
  private readonly dataDir: string;
  private readonly root: string;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    this.dataDir = resolve(config.dataDir);
    this.root = join(this.dataDir, 'imports');
  }

  /**
   * Creates the folders down to `leaf` (under imports/<org>) and makes sure each is 0700, also
   * when an earlier version created it with the process's default mode.
   */
  private async ensureDir(orgId: OrgId, leaf: string): Promise<string> {
    const orgDir = join(this.root, orgId);
    const dir = join(orgDir, leaf);
    await mkdir(dir, { recursive: true, mode: IMPORT_DIR_MODE });
    for (const d of [this.root, orgDir, dir]) await chmod(d, IMPORT_DIR_MODE);
    return dir;
  }

  /** Where uploads are streamed before they become an import (same filesystem: a rename). */
  incomingDir(orgId: OrgId): Promise<string> {
    return this.ensureDir(orgId, 'incoming');
  }

  sourcePath(orgId: OrgId, importId: string): string {
    return `imports/${orgId}/${importId}/source.csv`;
  }

  errorsPath(orgId: OrgId, importId: string): string {
    return `imports/${orgId}/${importId}/errors.csv`;
  }

  /** Absolute path of a stored relative one; refuses anything outside DATA_DIR. */
  absolute(relative: string): string {
    const abs = resolve(this.dataDir, relative);
    if (!abs.startsWith(this.dataDir + sep)) throw new Error('import path outside DATA_DIR');
    return abs;
  }

  ensureImportDir(orgId: OrgId, importId: string): Promise<string> {
    return this.ensureDir(orgId, importId);
  }

  async removeSource(orgId: OrgId, importId: string): Promise<void> {
    await rm(this.absolute(this.sourcePath(orgId, importId)), { force: true });
  }

  async removeErrors(orgId: OrgId, importId: string): Promise<void> {
    await rm(this.absolute(this.errorsPath(orgId, importId)), { force: true });
  }

  /**
   * The files an ended import no longer needs: its source, or its whole folder when it has no
   * errors file to keep.
   */
  async removeEnded(orgId: OrgId, importId: string, keepsErrors: boolean): Promise<void> {
    if (keepsErrors) await this.removeSource(orgId, importId);
    else await this.removeImport(orgId, importId);
  }

  /** Removes the import's folder (source and errors files). */
  async removeImport(orgId: OrgId, importId: string): Promise<void> {
    await rm(join(this.root, orgId, importId), { recursive: true, force: true });
  }

  /**
   * Removes the files of every organization's incoming folder last written before `before`:
   * uploads whose process died mid-stream (a live upload writes every few milliseconds).
   */
  async removeStaleIncoming(before: Date): Promise<number> {
    let removed = 0;
    let orgs: string[];
    try {
      orgs = await readdir(this.root);
    } catch {
      return 0;
    }
    for (const org of orgs) {
      const dir = join(this.root, org, 'incoming');
      let names: string[];
      try {
        names = await readdir(dir);
      } catch {
        continue;
      }
      for (const name of names) {
        const path = join(dir, name);
        const info = await stat(path).catch(() => null);
        if (info && info.mtime < before) {
          await rm(path, { force: true, recursive: true });
          removed++;
        }
      }
    }
    return removed;
  }
}
