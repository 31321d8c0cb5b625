// Where import files live: DATA_DIR/imports/<organization>/<import>/{source,errors}.csv. Paths
// stored on the import (and shown to clients) are relative to DATA_DIR, never absolute.
import { Inject, Injectable } from '@nestjs/common';
import { mkdir, rm } from 'node:fs/promises';
import { join, resolve, sep } from 'node:path';
import type { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';

/** §7: uploads up to 200 MB. */
export const IMPORT_MAX_BYTES = 200 * 1024 * 1024;

@Injectable()
export class ImportStorage {
  private readonly dataDir: string;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    this.dataDir = resolve(config.dataDir);
  }

  /** Where uploads are streamed before they become an import (same filesystem: a rename). */
  async incomingDir(orgId: string): Promise<string> {
    const dir = join(this.dataDir, 'imports', orgId, 'incoming');
    await mkdir(dir, { recursive: true });
    return dir;
  }

  sourcePath(orgId: string, importId: string): string {
    return `imports/${orgId}/${importId}/source.csv`;
  }

  errorsPath(orgId: string, importId: string): string {
    return `imports/${orgId}/${importId}/errors.csv`;
  }

  /** Absolute path of a stored relative one; refuses anything outside DATA_DIR. */
  absolute(relative: string): string {
    const abs = resolve(this.dataDir, relative);
    if (!abs.startsWith(this.dataDir + sep)) throw new Error('import path outside DATA_DIR');
    return abs;
  }

  async ensureImportDir(orgId: string, importId: string): Promise<string> {
    const dir = join(this.dataDir, 'imports', orgId, importId);
    await mkdir(dir, { recursive: true });
    return dir;
  }

  /** Removes the import's folder (source and errors files). */
  async removeImport(orgId: string, importId: string): Promise<void> {
    await rm(join(this.dataDir, 'imports', orgId, importId), { recursive: true, force: true });
  }
}
