// Two tiers: unit specs beside the code (pure logic, fakes allowed) and e2e specs under test/
// (real PostgreSQL and Redis; each file has its own database cloned from a migrated template).
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
  // A worker exits once its last file's database is dropped; on a loaded machine that can take
  // longer than jest's default half second.
  workerGracefulExitTimeout: 10000,
  reporters: ['default', '<rootDir>/test/support/summary-reporter.js'],
  projects: [
    {
      ...base,
      displayName: 'unit',
      rootDir: __dirname,
      // The provider fakes of test/support/providers and the local lint rules have unit tests of
      // their own.
      testMatch: [
        '<rootDir>/{apps,libs,eslint-rules}/**/*.spec.ts',
        '<rootDir>/test/support/**/*.spec.ts',
      ],
    },
    {
      ...base,
      displayName: 'e2e',
      rootDir: __dirname,
      testMatch: ['<rootDir>/test/**/*.e2e-spec.ts'],
      testEnvironment: '<rootDir>/test/support/environment.ts',
      globalSetup: '<rootDir>/test/support/global-setup.ts',
      globalTeardown: '<rootDir>/test/support/global-teardown.ts',
      setupFilesAfterEnv: ['<rootDir>/test/support/setup.ts'],
    },
  ],
};
