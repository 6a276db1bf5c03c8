// Records the totals of a `go test -json` run (read on stdin, with the go command's stderr merged
// in) beside the jest workspaces' totals, so that `make test` counts them in its closing line,
// and prints the failures' output.
//
// What counts as a failure:
// - a test that fails;
// - a package that fails without a failing test: a compile error (Go reports it as build-output
//   and build-fail events, then the package's fail event with FailedBuild), a panic in TestMain, a
//   setup error;
// - a line that is not JSON and is not the go command's progress: an error of the go command
//   itself (a module that cannot be found, say);
// - a run in which no test passed and none failed (nothing was tested at all).
// The go command's progress lines ("go: downloading ...", "go: finding ...", "go: extracting
// ...") are not failures: they appear on every machine whose module cache is still empty.
'use strict';
const fs = require('node:fs');
const path = require('node:path');

const PROGRESS = /^go: (downloading|finding|extracting|upgraded|added|found) /;

/** Totals and the text to print for one `go test -json` stream. */
function summarise(stream) {
  const totals = { passed: 0, failed: 0, skipped: 0 };
  const report = [];
  const output = new Map();
  const buildOutput = new Map();
  const failedTests = new Set();
  for (const line of stream.split('\n')) {
    if (!line.trim()) continue;
    let e;
    try {
      e = line.startsWith('{') ? JSON.parse(line) : undefined;
    } catch {
      e = undefined;
    }
    if (!e) {
      if (PROGRESS.test(line)) continue;
      totals.failed++;
      report.push(`go: ${line}`);
      continue;
    }
    if (e.Action === 'build-output') buildOutput.set(e.ImportPath, (buildOutput.get(e.ImportPath) ?? '') + e.Output);
    if (!e.Package) continue;
    const key = e.Test ? `${e.Package} ${e.Test}` : e.Package;
    if (e.Action === 'output') output.set(key, (output.get(key) ?? '') + e.Output);
    if (!e.Test) {
      // A package's own verdict: it failed without a failing test of its own, so it never ran them.
      if (e.Action === 'fail' && !failedTests.has(e.Package)) {
        totals.failed++;
        const built = e.FailedBuild ? buildOutput.get(e.FailedBuild) : undefined;
        report.push(
          built ? `build failed: ${e.FailedBuild}\n${built}` : `${e.Package} failed before its tests ran\n${output.get(key) ?? ''}`,
        );
      }
      continue;
    }
    if (e.Action === 'pass') totals.passed++;
    if (e.Action === 'skip') totals.skipped++;
    if (e.Action === 'fail') {
      totals.failed++;
      failedTests.add(e.Package);
      report.push(output.get(key) ?? `${key} failed\n`);
    }
  }
  if (totals.passed === 0 && totals.failed === 0) {
    totals.failed++;
    report.push('no test ran: go test reported no test at all\n');
  }
  return { totals, report: report.map((r) => (r.endsWith('\n') ? r : `${r}\n`)).join('') };
}

module.exports = { summarise };

if (require.main === module) {
  const name = process.argv[2];
  const { totals, report } = summarise(fs.readFileSync(0, 'utf8'));
  process.stdout.write(report);
  const dir = process.env.TEST_RESULTS_DIR ?? path.join(__dirname, '..', '.jest-results');
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, `${name}.json`), JSON.stringify(totals));
  console.log(`${name}: ${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped`);
  process.exit(totals.failed > 0 ? 1 : 0);
}
