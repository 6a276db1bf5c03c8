// Records the totals of the Android app's JVM tests (android-agent/android/jvm.sh test, read on
// stdin) beside the jest workspaces' totals, so that `make test` counts them in its closing line,
// and prints the failures. The Python client's runner (clients/python/tests/run.py) ends with the
// same totals line and is read the same way.
'use strict';
const fs = require('node:fs');
const path = require('node:path');

const name = process.argv[2];
let totals;
let inFailure = false;
for (const line of fs.readFileSync(0, 'utf8').split('\n')) {
  if (/^\{"passed":\d+,"failed":\d+,"skipped":\d+\}$/.test(line)) {
    totals = JSON.parse(line);
    continue;
  }
  if (line.startsWith('FAIL ')) inFailure = true;
  else if (line.startsWith('ok   ')) inFailure = false;
  // Compiler errors come before any test line: show them too.
  if (inFailure || (!totals && !line.startsWith('ok   ') && !line.startsWith('[agent]') && line.trim() && !line.startsWith('['))) {
    process.stdout.write(`${line}\n`);
  }
}
// No totals: the build or the runner failed before the tests could report.
totals ??= { passed: 0, failed: 1, skipped: 0 };
const dir = path.join(__dirname, '..', '.jest-results');
fs.mkdirSync(dir, { recursive: true });
fs.writeFileSync(path.join(dir, `${name}.json`), JSON.stringify(totals));
console.log(`${name}: ${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped`);
process.exit(totals.failed > 0 ? 1 : 0);
