// Shared jest settings of every workspace. ts-jest compiles each test file on
// its own (isolatedModules in tsconfig.base.json): type errors are caught by
// `npm run typecheck`, which keeps test start-up fast on two cores. Two workers: most suites wait
// on real servers (Postgres, NATS, timers) rather than compute, and each uses a schema, subject
// prefix and key prefix of its own, so two at a time fill the two cores that one leaves half idle.
const path = require('node:path');

module.exports = {
  testEnvironment: 'node',
  testMatch: ['<rootDir>/{src,test}/**/*.test.ts'],
  transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: '<rootDir>/tsconfig.json' }] },
  moduleFileExtensions: ['ts', 'js', 'json'],
  reporters: ['default', path.join(__dirname, 'scripts/jest-summary-reporter.js')],
  testTimeout: 30_000,
  maxWorkers: 2,
};
