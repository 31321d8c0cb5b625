// Preload (`node -r ./scripts/alias.js`) for sources compiled by plain tsc (bench/): resolves
// '@app/domain' to the compiled library next to them. nest build rewrites these paths itself.
const Module = require('node:module');
const path = require('node:path');

const domain = path.resolve(__dirname, '../dist/bench/libs/domain/src');
const resolve = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  if (request === '@app/domain') request = domain;
  else if (request.startsWith('@app/domain/')) request = path.join(domain, request.slice('@app/domain/'.length));
  return resolve.call(this, request, ...rest);
};
