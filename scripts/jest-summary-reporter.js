// Records each workspace's totals so `make test` can print one closing line.
'use strict';
const fs = require('node:fs');
const path = require('node:path');

class SummaryReporter {
  constructor(globalConfig) {
    this.rootDir = globalConfig.rootDir;
  }

  onRunComplete(_contexts, results) {
    const dir = path.join(__dirname, '..', '.jest-results');
    fs.mkdirSync(dir, { recursive: true });
    const name = path.relative(path.join(__dirname, '..'), this.rootDir).replace(/[\\/]/g, '_') || 'root';
    fs.writeFileSync(
      path.join(dir, `${name}.json`),
      JSON.stringify({
        passed: results.numPassedTests,
        failed: results.numFailedTests + results.numRuntimeErrorTestSuites,
        skipped: results.numPendingTests + results.numTodoTests,
      }),
    );
  }
}

module.exports = SummaryReporter;
