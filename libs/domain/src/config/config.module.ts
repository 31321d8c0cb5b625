// Provides the validated AppConfig to every module.
import { Global, Module } from '@nestjs/common';
import { AppConfig, loadConfig } from './app-config';

/** Injection token of the validated AppConfig. */
export const APP_CONFIG = Symbol('APP_CONFIG');

@Global()
@Module({
  providers: [{ provide: APP_CONFIG, useFactory: (): AppConfig => loadConfig() }],
  exports: [APP_CONFIG],
})
export class AppConfigModule {}
