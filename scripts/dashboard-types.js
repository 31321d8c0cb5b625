#!/usr/bin/env node
// Writes the dashboard's API client types (apps/dashboard/src/api/schema.d.ts, not committed) from
// the OpenAPI document docs/openapi.json. `npm run typecheck` runs it first; run it by hand after
// `npm run openapi` when an editor needs the types.
const { readFileSync, writeFileSync } = require('node:fs');
const { join } = require('node:path');

const ROOT = join(__dirname, '..');
const DOC_FILE = join(ROOT, 'docs/openapi.json');
const SCHEMA_FILE = join(ROOT, 'apps/dashboard/src/api/schema.d.ts');

/** The client types of an OpenAPI document, formatted as the repository formats TypeScript. */
async function dashboardTypes(document) {
  const { default: openapiTS, astToString } = await import('openapi-typescript');
  const prettier = await import('prettier');
  const banner =
    '// Generated from docs/openapi.json by scripts/dashboard-types.js; do not edit.\n' +
    '/* eslint-disable */\n';
  const ts = banner + astToString(await openapiTS(document));
  return prettier.format(ts, { ...(await prettier.resolveConfig(SCHEMA_FILE)), filepath: SCHEMA_FILE });
}

async function writeDashboardTypes(document = JSON.parse(readFileSync(DOC_FILE, 'utf8'))) {
  writeFileSync(SCHEMA_FILE, await dashboardTypes(document));
}

module.exports = { writeDashboardTypes };

if (require.main === module) {
  writeDashboardTypes().catch((err) => {
    console.error(err.message ?? err);
    process.exit(1);
  });
}
