// Boots the api exactly as main.ts does (same module, same configureApp) against the run's database.
import { INestApplication } from '@nestjs/common';
import { Test, TestingModuleBuilder } from '@nestjs/testing';
import { JsonLogger, loadConfig } from '@app/domain';
import { ApiModule } from '../../apps/api/src/api.module';
import { configureApp } from '../../apps/api/src/configure-app';

export interface TestAppOptions {
  /** Adjust providers before compiling (e.g. override Clock). */
  override?: (builder: TestingModuleBuilder) => TestingModuleBuilder;
  /** Log level of the app's JSON logger (default warn). */
  logLevel?: 'debug' | 'info' | 'warn' | 'error';
}

export async function createTestApp(opts: TestAppOptions = {}): Promise<INestApplication> {
  let builder = Test.createTestingModule({ imports: [ApiModule] });
  if (opts.override) builder = opts.override(builder);
  const moduleRef = await builder.compile();
  const app = moduleRef.createNestApplication({
    bodyParser: false,
    logger: new JsonLogger('api-test', opts.logLevel ?? 'warn'),
  });
  configureApp(app, loadConfig());
  await app.init();
  return app;
}
