// The object store every stored file goes through, chosen by STORAGE_URL (§18).
import { Module } from '@nestjs/common';
import type { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { FileObjectStore } from './file-object-store';
import { ObjectCipher } from './object-cipher';
import { ObjectStore } from './object-store';
import { S3ObjectStore } from './s3-object-store';

export function createObjectStore(config: AppConfig): ObjectStore {
  const s = config.storage;
  if (s.kind === 'file') return new FileObjectStore(s.root);
  return new S3ObjectStore(s, new ObjectCipher(config.encryptionKey, config.encryptionKeysOld));
}

@Module({
  providers: [{ provide: ObjectStore, useFactory: createObjectStore, inject: [APP_CONFIG] }],
  exports: [ObjectStore],
})
export class StorageModule {}
