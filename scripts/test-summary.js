// Prints the one closing line of `make test` from every workspace's totals.
'use strict';
const fs = require('node:fs');
const path = require('node:path');

const dir = path.join(__dirname, '..', '.jest-results');
const totals = { passed: 0, failed: 0, skipped: 0 };
for (const file of fs.existsSync(dir) ? fs.readdirSync(dir) : []) {
  const r = JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8'));
  for (const k of Object.keys(totals)) totals[k] += r[k];
}
console.log(`Total: ${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped`);
process.exit(totals.failed > 0 || totals.passed === 0 ? 1 : 0);
