// The imports area (§7): uploads, processing state, runner, batch writer, file retention (§16).
import { Module } from '@nestjs/common';
import { ContactsModule } from '../contacts/contacts.module';
import { ImportBatches } from './import-batches';
import { ImportFiles } from './import-files';
import { ImportFilesRepository } from './import-files.repository';
import { ImportRunner } from './import-runner';
import { ImportStorage } from './import-storage';
import { ImportUploads } from './import-uploads';
import { ImportsRepository } from './imports.repository';
import { ImportsService } from './imports.service';

const SERVICES = [
  ImportsRepository,
  ImportFilesRepository,
  ImportsService,
  ImportRunner,
  ImportBatches,
  ImportStorage,
  ImportUploads,
  ImportFiles,
];

@Module({
  imports: [ContactsModule],
  providers: SERVICES,
  exports: SERVICES,
})
export class ImportsModule {}
