// Two tiers: unit specs beside the code (pure logic, fakes allowed) and e2e specs under test/
// (real PostgreSQL and Redis; one shared database per run, a fresh organization per file).
const base = {
  preset: 'ts-jest',
  testEnvironment: 'node',
  moduleFileExtensions: ['ts', 'js', 'json'],
  transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json' }] },
  moduleNameMapper: {
    '^@app/domain$': '<rootDir>/libs/domain/src',
    '^@app/domain/(.*)$': '<rootDir>/libs/domain/src/$1',
  },
};

module.exports = {
  testTimeout: 60000,
  testSequencer: '<rootDir>/test/support/sequencer.js',
  reporters: ['default', '<rootDir>/test/support/summary-reporter.js'],
  projects: [
    {
      ...base,
      displayName: 'unit',
      rootDir: __dirname,
      testMatch: ['<rootDir>/{apps,libs}/**/*.spec.ts'],
    },
    {
      ...base,
      displayName: 'e2e',
      rootDir: __dirname,
      testMatch: ['<rootDir>/test/**/*.e2e-spec.ts'],
      globalSetup: '<rootDir>/test/support/global-setup.mjs',
      globalTeardown: '<rootDir>/test/support/global-teardown.mjs',
      setupFiles: ['<rootDir>/test/support/env.js'],
    },
  ],
};
