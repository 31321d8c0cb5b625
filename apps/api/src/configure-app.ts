// Everything main.ts and the e2e tests both need, so tests run the app exactly as deployed.
import type { Server } from 'node:http';
import { INestApplication } from '@nestjs/common';
import type { NestExpressApplication } from '@nestjs/platform-express';
import type { AppConfig } from '@app/domain';
import { installBodyParsers } from './http/body-parsers';
import { installClientErrorHandler, requireHost } from './http/client-errors';
import { installDashboard } from './http/dashboard';
import { installEnvelope } from './http/envelope';
import { installOpenApi } from './http/openapi';
import { requestContextMiddleware } from './http/request-context.middleware';

export function configureApp(app: INestApplication, config: AppConfig): void {
  const express = app as NestExpressApplication;
  express.set('trust proxy', config.trustProxy ? 1 : false);
  express.disable('x-powered-by');
  // API answers are per-credential and dynamic: hashing every body for an ETag costs CPU for nothing.
  express.set('etag', false);
  const server: Server = express.getHttpServer();
  // Behind a load balancer an idle connection must outlive the balancer's idle timeout, or the
  // balancer may reuse one the server is closing (a 502 to the client); Node needs headers above it.
  server.keepAliveTimeout = config.http.keepAliveTimeoutMs;
  server.headersTimeout = config.http.headersTimeoutMs;
  installClientErrorHandler(server);
  installEnvelope(app);
  app.use(requestContextMiddleware);
  app.use(requireHost);
  installBodyParsers(app);
  installOpenApi(app);
  installDashboard(express, config.dashboardDir);
  app.enableShutdownHooks();
}
