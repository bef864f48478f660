// Unit specs live beside the code; end-to-end suites in test/ run against real PostgreSQL and Redis.
const moduleNameMapper = {
  '^@app/([a-z-]+)/(.*)$': '<rootDir>/libs/$1/src/$2',
  '^@app/([a-z-]+)$': '<rootDir>/libs/$1/src',
  // The SDK is tested from its sources (no build step): the same mapping as tsconfig.json's paths.
  '^@stablecoin-payments/sdk$': '<rootDir>/packages/sdk/src',
};
const transform = {
  '^.+\\.ts$': ['ts-jest', { tsconfig: '<rootDir>/tsconfig.json' }],
};

module.exports = {
  projects: [
    {
      displayName: 'unit',
      rootDir: __dirname,
      testMatch: [
        '<rootDir>/libs/**/*.spec.ts',
        '<rootDir>/apps/**/*.spec.ts',
        '<rootDir>/packages/*/src/**/*.spec.ts',
      ],
      testEnvironment: 'node',
      moduleNameMapper,
      transform,
    },
    {
      displayName: 'e2e',
      rootDir: __dirname,
      testMatch: ['<rootDir>/test/**/*.e2e-spec.ts'],
      testEnvironment: 'node',
      moduleNameMapper,
      transform,
      globalSetup: '<rootDir>/test/setup/global-setup.ts',
      globalTeardown: '<rootDir>/test/setup/global-teardown.ts',
      setupFiles: ['<rootDir>/test/setup/test-env.ts'],
    },
  ],
  maxWorkers: 2,
  // Global only: jest-circus reads the global testTimeout and ignores one set in a project (which
  // left the end-to-end suites at the 5 s default). Generous, and the one limit: suites start apps,
  // chains and builds, which take minutes on a loaded 2-core machine; tests wait for conditions,
  // so a hook or test sets a longer limit only, never a shorter one.
  testTimeout: 300000,
};
