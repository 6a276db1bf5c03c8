const preset = require('../jest.preset');

// Each suite starts the whole system as real processes: one suite at a time
// on a two-core machine, with room for start-up in the timeouts.
module.exports = { ...preset, testTimeout: 90_000, maxWorkers: 1 };
