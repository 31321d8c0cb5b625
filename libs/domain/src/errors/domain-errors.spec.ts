import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { ERROR_CODES } from './domain-errors';

const ROOT = join(__dirname, '../../../..');

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return e.name === 'node_modules' ? [] : sources(path);
    return e.name.endsWith('.ts') && !e.name.endsWith('.spec.ts') ? [path] : [];
  });
}

describe('error codes', () => {
  it('are only those of the spec list, plus E_INTERNAL_SERVER_ERROR and E_SERVICE_UNAVAILABLE', () => {
    expect([...ERROR_CODES].sort()).toEqual(
      [
        'E_VALIDATION_ERROR',
        'E_UNAUTHORIZED_ACCESS',
        'E_UNAUTHORIZED',
        'E_FORBIDDEN',
        'E_INSUFFICIENT_SCOPE',
        'E_ROW_NOT_FOUND',
        'E_TOO_MANY_REQUESTS',
        'E_BUSINESS_RULE_VIOLATION',
        'E_CAMPAIGN_NOT_SENDABLE',
        'INSUFFICIENT_CREDITS',
        'SUBSCRIPTION_REQUIRED',
        'E_INTERNAL_SERVER_ERROR',
        'E_SERVICE_UNAVAILABLE',
      ].sort(),
    );
  });

  it('no product source under apps/ or libs/ spells an E_ code outside the list', () => {
    const allowed = new Set<string>(ERROR_CODES);
    const strays: string[] = [];
    for (const file of [...sources(join(ROOT, 'apps')), ...sources(join(ROOT, 'libs'))]) {
      for (const m of readFileSync(file, 'utf8').matchAll(/['"`](E_[A-Z][A-Z0-9_]*)['"`]/g)) {
        if (!allowed.has(m[1])) strays.push(`${relative(ROOT, file)}: ${m[1]}`);
      }
    }
    expect(strays).toEqual([]);
  });
});
