// Boots the api exactly as main.ts does (same module, same configureApp) against the run's database.
import { INestApplication } from '@nestjs/common';
import { Test, TestingModuleBuilder } from '@nestjs/testing';
import { JsonLogger, loadConfig } from '@app/domain';
import { ApiModule } from '../../apps/api/src/api.module';
import { configureApp } from '../../apps/api/src/configure-app';

export interface TestAppOptions {
  /** Adjust providers before compiling (e.g. override Clock). */
  override?: (builder: TestingModuleBuilder) => TestingModuleBuilder;
  /** Log level of the app's JSON logger (default LOG_LEVEL, which the e2e environment sets to error). */
  logLevel?: LogLevel;
}

type LogLevel = 'debug' | 'info' | 'warn' | 'error';

/** The JSON logger of an app under test: errors only, unless the test or LOG_LEVEL asks for more. */
export function testLogger(service: string, level?: LogLevel): JsonLogger {
  return new JsonLogger(
    service,
    level ?? (process.env.LOG_LEVEL as LogLevel | undefined) ?? 'error',
  );
}

export async function createTestApp(opts: TestAppOptions = {}): Promise<INestApplication> {
  let builder = Test.createTestingModule({ imports: [ApiModule] });
  if (opts.override) builder = opts.override(builder);
  const moduleRef = await builder.compile();
  const app = moduleRef.createNestApplication({
    bodyParser: false,
    logger: testLogger('api-test', opts.logLevel),
  });
  configureApp(app, loadConfig());
  await app.init();
  return app;
}
