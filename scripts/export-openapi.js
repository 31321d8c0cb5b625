// Writes the api's OpenAPI document to docs/openapi.json, then the dashboard's client types from
// it (scripts/dashboard-types.js). Reads the compiled api (the swagger plugin's metadata exists
// only in the build) in Nest's preview mode: the module graph is resolved but nothing is
// instantiated, so no database or Redis is needed. `--check` writes nothing and exits 1 when the
// committed document differs from what the current build gives.
const { readFileSync, writeFileSync, existsSync } = require('node:fs');
const { join } = require('node:path');

const ROOT = join(__dirname, '..');
const BUILD = join(ROOT, 'dist/apps/api/apps/api/src');
const DOC_FILE = join(ROOT, 'docs/openapi.json');
const { writeDashboardTypes } = require('./dashboard-types');

async function generate() {
  if (!existsSync(join(BUILD, 'api.module.js'))) {
    throw new Error('no api build in dist/: run `npm run build` first');
  }
  const { NestFactory } = require('@nestjs/core');
  const { ApiModule } = require(join(BUILD, 'api.module.js'));
  const { buildOpenApiDocument } = require(join(BUILD, 'http/openapi.js'));
  const app = await NestFactory.create(ApiModule, { preview: true, logger: false });
  const document = buildOpenApiDocument(app);
  await app.close();
  return `${JSON.stringify(document, null, 2)}\n`;
}

async function main() {
  const check = process.argv.includes('--check');
  const json = await generate();
  if (!check) {
    writeFileSync(DOC_FILE, json);
    await writeDashboardTypes(JSON.parse(json));
    console.log('wrote docs/openapi.json and apps/dashboard/src/api/schema.d.ts, schema-values.ts');
    return;
  }
  if (!existsSync(DOC_FILE) || readFileSync(DOC_FILE, 'utf8') !== json) {
    console.error('stale: docs/openapi.json');
    console.error('run `npm run build && npm run openapi` and commit the result');
    process.exit(1);
  }
  console.log('docs/openapi.json is up to date');
}

main().catch((err) => {
  console.error(err.message ?? err);
  process.exit(1);
});
