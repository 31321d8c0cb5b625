// `npm run screenshots`: the e2e project's set-up (a throwaway database) for the screenshot run only.
const { projects, testTimeout } = require('../../jest.config');

const e2e = projects.find((p) => p.displayName === 'e2e');

module.exports = {
  testTimeout,
  ...e2e,
  rootDir: require('node:path').join(__dirname, '../..'),
  testMatch: ['<rootDir>/test/dashboard/screenshots.ts'],
};
