// Writes the api's OpenAPI document to docs/openapi.json and the dashboard's client types to
// apps/dashboard/src/api/schema.d.ts. Reads the compiled api (the swagger plugin's metadata exists
// only in the build) in Nest's preview mode: the module graph is resolved but nothing is
// instantiated, so no database or Redis is needed. `--check` writes nothing and exits 1 when a
// committed file differs from what the current build gives.
const { readFileSync, writeFileSync, existsSync } = require('node:fs');
const { join } = require('node:path');

const ROOT = join(__dirname, '..');
const BUILD = join(ROOT, 'dist/apps/api/apps/api/src');
const DOC_FILE = join(ROOT, 'docs/openapi.json');
const SCHEMA_FILE = join(ROOT, 'apps/dashboard/src/api/schema.d.ts');

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
  const json = `${JSON.stringify(document, null, 2)}\n`;

  const { default: openapiTS, astToString } = await import('openapi-typescript');
  const prettier = await import('prettier');
  const banner =
    '// Generated from docs/openapi.json by `npm run openapi`; do not edit.\n' +
    '/* eslint-disable */\n';
  const ts = banner + astToString(await openapiTS(JSON.parse(json)));
  const options = { ...(await prettier.resolveConfig(SCHEMA_FILE)), filepath: SCHEMA_FILE };
  return { json, ts: await prettier.format(ts, options) };
}

async function main() {
  const check = process.argv.includes('--check');
  const { json, ts } = await generate();
  const files = [
    [DOC_FILE, json],
    [SCHEMA_FILE, ts],
  ];
  if (!check) {
    for (const [file, text] of files) writeFileSync(file, text);
    console.log('wrote docs/openapi.json and apps/dashboard/src/api/schema.d.ts');
    return;
  }
  const stale = files.filter(([file, text]) => !existsSync(file) || readFileSync(file, 'utf8') !== text);
  if (stale.length) {
    for (const [file] of stale) console.error(`stale: ${file.slice(ROOT.length + 1)}`);
    console.error('run `npm run build && npm run openapi` and commit the result');
    process.exit(1);
  }
  console.log('docs/openapi.json and the dashboard schema are up to date');
}

main().catch((err) => {
  console.error(err.message ?? err);
  process.exit(1);
});
