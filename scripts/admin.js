#!/usr/bin/env node
// The `mp-admin` bin (`npx mp-admin <command>`, `npm run admin -- <command>`): runs the compiled
// admin CLI (apps/api/src/cli.ts), building the api first when its build is missing or stale.
// `mp-admin --help` lists the commands; `mp-admin <command> --help` explains one.
const path = require('node:path');
const { build } = require('./build');

const root = path.resolve(__dirname, '..');
try {
  build(['api'], { ifStale: true });
} catch (err) {
  process.stderr.write(`mp-admin: ${err.message}\n`);
  process.exit(1);
}
require(path.join(root, 'dist/apps/api/apps/api/src/cli.js')).cliMain(process.argv.slice(2));
