// Contact imports (§7): uploads, their processing state, the batch writer and the runner the
// worker (and the CLI) drive.
import { Module } from '@nestjs/common';
import { ContactsModule } from '../contacts/contacts.module';
import { ImportRunner } from './import-runner';
import { ImportStorage } from './import-storage';
import { ImportWriter } from './import-writer';
import { ImportsService } from './imports.service';

const SERVICES = [ImportsService, ImportRunner, ImportWriter, ImportStorage];

@Module({
  imports: [ContactsModule],
  providers: SERVICES,
  exports: SERVICES,
})
export class ImportsModule {}
