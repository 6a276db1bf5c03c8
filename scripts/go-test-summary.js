// Records the totals of a `go test -json` run (read on stdin) beside the jest workspaces' totals,
// so that `make test` counts them in its closing line, and prints the failures' output.
'use strict';
const fs = require('node:fs');
const path = require('node:path');

const name = process.argv[2];
const totals = { passed: 0, failed: 0, skipped: 0 };
const output = new Map();
let buildFailed = false;
for (const line of fs.readFileSync(0, 'utf8').split('\n')) {
  if (!line.startsWith('{')) {
    if (line.trim()) buildFailed = true, process.stdout.write(`${line}\n`);
    continue;
  }
  const e = JSON.parse(line);
  if (!e.Test) continue;
  const key = `${e.Package} ${e.Test}`;
  if (e.Action === 'output') output.set(key, (output.get(key) ?? '') + e.Output);
  if (e.Action === 'pass') totals.passed++;
  if (e.Action === 'skip') totals.skipped++;
  if (e.Action === 'fail') {
    totals.failed++;
    process.stdout.write(output.get(key) ?? `${key} failed\n`);
  }
}
if (buildFailed && totals.failed === 0) totals.failed = 1;
const dir = path.join(__dirname, '..', '.jest-results');
fs.mkdirSync(dir, { recursive: true });
fs.writeFileSync(path.join(dir, `${name}.json`), JSON.stringify(totals));
console.log(`${name}: ${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped`);
process.exit(totals.failed > 0 ? 1 : 0);
