#!/usr/bin/env node
// npm run bench -- <name> [args]: compiles bench/ with the app sources and runs bench/<name>.ts.
// Benchmarks are not tests: they print figures next to a baseline measured in the same run.
const { execSync } = require('node:child_process');
const { existsSync } = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const name = process.argv[2];
if (!name) {
  process.stderr.write('usage: npm run bench -- <name> [args]\n');
  process.exit(2);
}
process.stderr.write('compiling benchmarks...\n');
execSync('npx tsc -p bench/tsconfig.json', { cwd: root, stdio: 'inherit' });

require('./alias');

const file = path.join(root, 'dist/bench/bench', `${name}.js`);
if (!existsSync(file)) {
  process.stderr.write(`no benchmark named ${name}\n`);
  process.exit(2);
}
process.argv.splice(2, 1);
require(file);
