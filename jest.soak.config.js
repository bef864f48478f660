// `npm run test:soak`: long randomized runs of the whole service (test/soak/), kept out of
// `npm test` because they take many minutes. Same environment as the end-to-end suites.
const base = require('./jest.config');

const e2e = base.projects.find((project) => project.displayName === 'e2e');

module.exports = {
  ...base,
  projects: [{ ...e2e, displayName: 'soak', testMatch: ['<rootDir>/test/soak/**/*.soak-spec.ts'] }],
  testTimeout: 30 * 60 * 1000,
  // One long file: one Jest worker, one database and Redis slot.
  maxWorkers: 1,
};
