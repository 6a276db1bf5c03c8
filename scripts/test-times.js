// Where the time of `make test` went, printed by scripts/test-summary.js above its closing line:
// each step of the Makefile (scripts/timed.sh writes .jest-results/steps.log), each workspace's
// `test` task as turbo timed it (`--summarize` writes .turbo/runs/<id>.json), each end-to-end test
// file and the slowest other test files as jest timed them (.jest-results/<workspace>.json, from
// scripts/jest-summary-reporter.js). A part that did not record its times is left out.
'use strict';
const fs = require('node:fs');
const path = require('node:path');

/** How many of the other workspaces' test files are named: the slowest. */
const SLOWEST_OTHER_FILES = 10;

const seconds = (ms) => `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)} s`;
const minutes = (ms) => (ms >= 60_000 ? `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s` : seconds(ms));

/** `[name, ms]` pairs as aligned lines, the longest first. */
function lines(pairs, indent = '    ') {
  const sorted = [...pairs].sort((a, b) => b[1] - a[1]);
  const width = Math.max(0, ...sorted.map(([name]) => name.length));
  return sorted.map(([name, ms]) => `${indent}${name.padEnd(width)}  ${minutes(ms).padStart(11)}`);
}

/** The steps of the Makefile: "<start ms> <end ms> <name>" lines. */
function readSteps(resultsDir) {
  const file = path.join(resultsDir, 'steps.log');
  if (!fs.existsSync(file)) return [];
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .map((line) => /^(\d+) (\d+) (.+)$/.exec(line.trim()))
    .filter(Boolean)
    .map((m) => [m[3], Number(m[2]) - Number(m[1])]);
}

/** Each workspace's `test` task of turbo's run summaries (a task turbo did not run has no time). */
function readTurboTests(turboRunsDir) {
  if (!fs.existsSync(turboRunsDir)) return [];
  const out = [];
  for (const file of fs.readdirSync(turboRunsDir).filter((f) => f.endsWith('.json'))) {
    let summary;
    try {
      summary = JSON.parse(fs.readFileSync(path.join(turboRunsDir, file), 'utf8'));
    } catch {
      continue; // a summary turbo was still writing, or cut short
    }
    for (const task of summary.tasks ?? []) {
      const e = task.execution;
      if (task.task === 'test' && e && e.endTime > e.startTime) out.push([task.package, e.endTime - e.startTime]);
    }
  }
  return out;
}

/** Each test file's time from the jest workspaces' results, as `[path from the root, ms]`. */
function readJestFiles(resultsDir) {
  if (!fs.existsSync(resultsDir)) return [];
  const out = [];
  for (const file of fs.readdirSync(resultsDir).filter((f) => f.endsWith('.json'))) {
    const r = JSON.parse(fs.readFileSync(path.join(resultsDir, file), 'utf8'));
    for (const f of r.files ?? []) out.push([f.where, f.ms]);
  }
  return out;
}

/** The report's lines (none when nothing recorded a time). */
function timeReport({ resultsDir, turboRunsDir }) {
  const steps = readSteps(resultsDir);
  const workspaces = readTurboTests(turboRunsDir);
  const files = readJestFiles(resultsDir);
  const e2e = files.filter(([where]) => where.startsWith('e2e/'));
  const others = files
    .filter(([where]) => !where.startsWith('e2e/'))
    .sort((a, b) => b[1] - a[1])
    .slice(0, SLOWEST_OTHER_FILES);
  const out = [];
  if (steps.length > 0) out.push(`  Steps (${minutes(steps.reduce((n, [, ms]) => n + ms, 0))} in all):`, ...lines(steps));
  if (workspaces.length > 0) out.push('  Workspaces (turbo run test, one at a time):', ...lines(workspaces));
  // Jest runs two files of a workspace at a time, so a workspace's files add up to more than its time.
  if (e2e.length > 0) out.push('  End-to-end test files (two run at a time):', ...lines(e2e));
  if (others.length > 0) out.push(`  The slowest test files of the other workspaces (at most ${SLOWEST_OTHER_FILES}):`, ...lines(others));
  return out.length > 0 ? ['', 'Where the time went:', ...out] : [];
}

module.exports = { timeReport, readSteps, readTurboTests, readJestFiles };
