// The claims of cluster-wide periodic tasks, for every module of an app that runs PeriodicTasks.
import { Global, Module } from '@nestjs/common';
import { PeriodicRunRepository } from './periodic-run.repository';

@Global()
@Module({ providers: [PeriodicRunRepository], exports: [PeriodicRunRepository] })
export class PeriodicModule {}
