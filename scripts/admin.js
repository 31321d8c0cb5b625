#!/usr/bin/env node
// Runs the compiled admin CLI, building the api first when the build is missing.
const { existsSync } = require('node:fs');
const { execSync } = require('node:child_process');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const cli = path.join(root, 'dist/apps/api/apps/api/src/cli.js');
if (!existsSync(cli)) {
  process.stderr.write('building the api (first run)...\n');
  execSync('npx nest build api', { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
}
require(cli).cliMain(process.argv.slice(2));
