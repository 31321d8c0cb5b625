// Test-only preload: `node -r ./test/imports/ts-register.js apps/worker/src/main.ts` runs an app
// straight from its TypeScript sources (transpiled per file, as ts-jest does, cached on disk), so
// an e2e test can spawn a real worker process without a build step.
const { createHash } = require('node:crypto');
const fs = require('node:fs');
const Module = require('node:module');
const os = require('node:os');
const path = require('node:path');
const ts = require('typescript');

const domain = path.resolve(__dirname, '../../libs/domain/src');
const resolve = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  if (request === '@app/domain') request = domain;
  else if (request.startsWith('@app/domain/'))
    request = path.join(domain, request.slice('@app/domain/'.length));
  return resolve.call(this, request, ...rest);
};

const compilerOptions = {
  module: ts.ModuleKind.CommonJS,
  target: ts.ScriptTarget.ES2022,
  experimentalDecorators: true,
  emitDecoratorMetadata: true,
  esModuleInterop: true,
  isolatedModules: true,
};
const cacheDir = path.join(os.tmpdir(), 'mp-ts-register-cache');
fs.mkdirSync(cacheDir, { recursive: true });

require.extensions['.ts'] = function (module, filename) {
  const source = fs.readFileSync(filename, 'utf8');
  const key = createHash('sha1').update(ts.version).update(filename).update(source).digest('hex');
  const cached = path.join(cacheDir, `${key}.js`);
  let output;
  try {
    output = fs.readFileSync(cached, 'utf8');
  } catch {
    output = ts.transpileModule(source, { compilerOptions, fileName: filename }).outputText;
    fs.writeFileSync(cached, output);
  }
  module._compile(output, filename);
};
