#!/usr/bin/env node
// npm run test:resilience: builds the platform (api, worker, relay into dist/), compiles the suite
// (test/resilience, plain tsc into dist/resilience) and runs it. Not part of npm test.
// RESILIENCE_SKIP_BUILD=true reuses the current dist/apps build (development of the suite only).
const { execSync } = require('node:child_process');
const Module = require('node:module');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
if (process.env.RESILIENCE_SKIP_BUILD !== 'true') {
  process.stderr.write('building the platform (npm run build)...\n');
  execSync('npm run build', { cwd: root, stdio: 'inherit' });
}
process.stderr.write('compiling the resilience suite...\n');
execSync('npx tsc -p test/resilience/tsconfig.json', { cwd: root, stdio: 'inherit' });

// The suite's modules may import '@app/domain'; plain tsc leaves the path alias as written.
const domain = path.join(root, 'dist/resilience/libs/domain/src');
const resolve = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  if (request === '@app/domain') request = domain;
  else if (request.startsWith('@app/domain/')) request = path.join(domain, request.slice(12));
  return resolve.call(this, request, ...rest);
};

require(path.join(root, 'dist/resilience/test/resilience/runner.js'));
