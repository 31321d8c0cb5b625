// Serves the dashboard's static build at /dashboard (§15).
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { NestExpressApplication } from '@nestjs/platform-express';
import type { NextFunction, Request, Response } from 'express';

export const DASHBOARD_PATH = '/dashboard';

/**
 * Scripts, fonts, images and API calls from this origin only. Styles also allow inline: Mantine
 * writes its theme variables into a <style> element at run time and charts set style attributes.
 */
export const DASHBOARD_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const YEAR_SECONDS = 365 * 24 * 60 * 60;

function notFound(res: Response, message: string): void {
  res.status(404).json({ success: false, message, code: 'E_ROW_NOT_FOUND' });
}

function isRead(req: Request): boolean {
  return req.method === 'GET' || req.method === 'HEAD';
}

/**
 * Hashed assets are cached for a year; index.html is revalidated every time and returned for every
 * client-side route. The files need no credential: the app calls the public API like any other
 * client, its user's token travelling in the session cookie (docs/security.md).
 */
export function installDashboard(app: NestExpressApplication, dir: string): void {
  const index = join(dir, 'index.html');
  if (!existsSync(index)) {
    app.use(DASHBOARD_PATH, (req: Request, res: Response, next: NextFunction) => {
      if (!isRead(req)) return next();
      notFound(res, 'The dashboard is not built: run `npm run build` to build it');
    });
    return;
  }
  app.use(DASHBOARD_PATH, (req: Request, res: Response, next: NextFunction) => {
    res.setHeader('Content-Security-Policy', DASHBOARD_CSP);
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Referrer-Policy', 'no-referrer');
    next();
  });
  app.useStaticAssets(dir, {
    prefix: DASHBOARD_PATH,
    index: false,
    redirect: false,
    setHeaders: (res, path) => {
      // Vite puts a content hash in every file name under assets/: a changed file is a new URL.
      const hashed = path.startsWith(join(dir, 'assets'));
      res.setHeader(
        'Cache-Control',
        hashed ? `public, max-age=${YEAR_SECONDS}, immutable` : 'no-cache',
      );
    },
  });
  app.use(DASHBOARD_PATH, (req: Request, res: Response, next: NextFunction) => {
    if (!isRead(req)) return next();
    // A missing asset is a 404, not the page: a stale tab asking for an old hash must not get HTML.
    if (req.path.startsWith('/assets/')) return notFound(res, 'No such dashboard file');
    res.setHeader('Cache-Control', 'no-cache');
    res.sendFile(index);
  });
}
