// The imports area (§7): uploads, processing state, runner, batch writer, file retention (§16),
// and the sweeps across organizations (lost runs, the files housekeeping).
import { Module } from '@nestjs/common';
import { ContactsModule } from '../contacts/contacts.module';
import { StorageModule } from '../storage/storage.module';
import { ImportBatches } from './import-batches';
import { ImportFiles } from './import-files';
import { ImportFilesRepository } from './import-files.repository';
import { ImportFilesSweeper } from './import-files.sweeper';
import { ImportJobs } from './import-jobs';
import { ImportRunner } from './import-runner';
import { ImportStorage } from './import-storage';
import { ImportUploads } from './import-uploads';
import { ImportsRepository } from './imports.repository';
import { ImportsService } from './imports.service';
import { ImportsSweeper } from './imports.sweeper';

const SERVICES = [
  ImportsRepository,
  ImportFilesRepository,
  ImportsService,
  ImportsSweeper,
  ImportJobs,
  ImportRunner,
  ImportBatches,
  ImportStorage,
  ImportUploads,
  ImportFiles,
  ImportFilesSweeper,
];

@Module({
  imports: [ContactsModule, StorageModule],
  providers: SERVICES,
  exports: SERVICES,
})
export class ImportsModule {}
