// Prints the closing lines of `make test` from every workspace's totals: the failing tests by
// name (jest workspaces record them), then one totals line. A step that failed without reporting
// any test (`turbo run test` when a workspace's script dies before jest reports) is named too.
// Where the time went (scripts/test-times.js) is printed first.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { timeReport } = require('./test-times');

const dir = path.join(__dirname, '..', '.jest-results');
for (const line of timeReport({ resultsDir: dir, turboRunsDir: path.join(__dirname, '..', '.turbo', 'runs') })) console.log(line);
const totals = { passed: 0, failed: 0, skipped: 0 };
const failures = [];
const failedSteps = [];
for (const file of fs.existsSync(dir)
  ? fs
      .readdirSync(dir)
      .filter((f) => f.endsWith('.json'))
      .sort()
  : []) {
  const r = JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8'));
  for (const k of Object.keys(totals)) totals[k] += r[k] ?? 0;
  for (const f of r.failures ?? []) failures.push(f);
  if (r.failedStep) failedSteps.push(r.failedStep);
}
if (failures.length > 0) {
  console.log('\nFailing tests:');
  for (const f of failures) {
    console.log(`  ${f.where} > ${f.name}`);
    for (const line of f.lines) console.log(`      ${line.slice(0, 200)}`);
  }
}
for (const step of failedSteps) console.log(`Failed step: ${step}`);
console.log(`Total: ${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped`);
process.exit(totals.failed > 0 || totals.passed === 0 || failedSteps.length > 0 ? 1 : 0);
