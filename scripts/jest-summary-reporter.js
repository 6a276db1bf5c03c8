// Records each workspace's totals, and the names of its failing tests, so that `make test` can
// print one closing line with the failures just above it (the end of the log is often all a CI
// page shows), and how long each test file took (scripts/test-times.js prints them).
'use strict';
const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.join(__dirname, '..');
// eslint-disable-next-line no-control-regex
const ANSI = /\u001b\[[0-9;]*m/g;

/** The first lines of a failure's message, without colours: enough to tell one failure from another. */
function firstLines(messages) {
  const text = messages.join('\n').replace(ANSI, '');
  return text
    .split('\n')
    .map((line) => line.trimEnd())
    .filter((line) => line.trim() && !/^\s*(at |- Expected|\+ Received)/.test(line))
    .slice(0, 10);
}

class SummaryReporter {
  constructor(globalConfig) {
    this.rootDir = globalConfig.rootDir;
  }

  onRunComplete(_contexts, results) {
    const dir = path.join(ROOT, '.jest-results');
    fs.mkdirSync(dir, { recursive: true });
    const name = path.relative(ROOT, this.rootDir).replace(/[\\/]/g, '_') || 'root';
    const failures = [];
    const files = [];
    for (const file of results.testResults) {
      const where = path.relative(ROOT, file.testFilePath);
      if (file.perfStats && file.perfStats.end > file.perfStats.start) files.push({ where, ms: file.perfStats.end - file.perfStats.start });
      // A suite that could not run (a syntax error, a failing beforeAll outside any test).
      if (file.testExecError) failures.push({ where, name: '(the suite did not run)', lines: firstLines([file.testExecError.message]) });
      for (const test of file.testResults) {
        if (test.status === 'failed') failures.push({ where, name: test.fullName, lines: firstLines(test.failureMessages) });
      }
    }
    fs.writeFileSync(
      path.join(dir, `${name}.json`),
      JSON.stringify({
        passed: results.numPassedTests,
        failed: results.numFailedTests + results.numRuntimeErrorTestSuites,
        skipped: results.numPendingTests + results.numTodoTests,
        failures,
        ms: Date.now() - results.startTime,
        files,
      }),
    );
  }
}

module.exports = SummaryReporter;
