#!/usr/bin/env node
// Writes the dashboard's API client types and values from the OpenAPI document docs/openapi.json
// (neither file is committed):
// - apps/dashboard/src/api/schema.d.ts: the types of every path and schema (openapi-typescript);
// - apps/dashboard/src/api/schema-values.ts: the values of each enum the document names (a
//   component schema with an `enum`), as a constant array typed by that schema, for the selects
//   and checkbox lists of the dashboard.
// `npm run typecheck` and `npm run build:dashboard` run it first; run it by hand after
// `npm run openapi` when an editor needs the types. A file whose text is unchanged is not
// rewritten, so the dashboard's build does not go stale by it.
const { existsSync, readFileSync, writeFileSync } = require('node:fs');
const { join } = require('node:path');

const ROOT = join(__dirname, '..');
const DOC_FILE = join(ROOT, 'docs/openapi.json');
const SCHEMA_FILE = join(ROOT, 'apps/dashboard/src/api/schema.d.ts');
const VALUES_FILE = join(ROOT, 'apps/dashboard/src/api/schema-values.ts');

const BANNER =
  '// Generated from docs/openapi.json by scripts/dashboard-types.js; do not edit.\n' +
  '/* eslint-disable */\n';

async function format(ts, file) {
  const prettier = await import('prettier');
  return prettier.format(ts, { ...(await prettier.resolveConfig(file)), filepath: file });
}

/** The client types of an OpenAPI document, formatted as the repository formats TypeScript. */
async function dashboardTypes(document) {
  const { default: openapiTS, astToString } = await import('openapi-typescript');
  return format(BANNER + astToString(await openapiTS(document)), SCHEMA_FILE);
}

/** `Scope` → `scopeValues`, `WebhookEventType` → `webhookEventTypeValues`. */
function valuesName(schemaName) {
  return `${schemaName[0].toLowerCase()}${schemaName.slice(1)}Values`;
}

/** One typed constant array per named enum of the document, in the document's order. */
async function dashboardValues(document) {
  const schemas = document.components?.schemas ?? {};
  const named = Object.keys(schemas)
    .filter((name) => Array.isArray(schemas[name].enum))
    .sort();
  const lines = named.map((name) => {
    const type = `components['schemas']['${name}']`;
    return (
      `/** Every value of ${name}, in the document's order. */\n` +
      `export const ${valuesName(name)}: readonly ${type}[] = ${JSON.stringify(schemas[name].enum)};`
    );
  });
  const ts = `${BANNER}import type { components } from './schema';\n\n${lines.join('\n\n')}\n`;
  return format(ts, VALUES_FILE);
}

function writeIfChanged(file, text) {
  if (existsSync(file) && readFileSync(file, 'utf8') === text) return;
  writeFileSync(file, text);
}

async function writeDashboardTypes(document = JSON.parse(readFileSync(DOC_FILE, 'utf8'))) {
  writeIfChanged(SCHEMA_FILE, await dashboardTypes(document));
  writeIfChanged(VALUES_FILE, await dashboardValues(document));
}

module.exports = { writeDashboardTypes };

if (require.main === module) {
  writeDashboardTypes().catch((err) => {
    console.error(err.message ?? err);
    process.exit(1);
  });
}
