const preset = require('../jest.preset');

// Each suite starts the whole system as real processes, or uses the one started for the run
// (test/support/shared-stack.ts). Two suites at a time (the preset's workers): most of a suite's
// time is waiting (phones' pace, timers, expiries), so two stacks share the two cores well; the
// timeouts leave room for start-up on a busy machine.
module.exports = {
  ...preset,
  testTimeout: 90_000,
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  globalTeardown: '<rootDir>/test/support/global-teardown.ts',
};
