import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

// The report is plain JavaScript that make test runs with node (scripts/test-summary.js).
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { timeReport } = require('../../../scripts/test-times.js') as {
  timeReport(dirs: { resultsDir: string; turboRunsDir: string }): string[];
};

/** A results folder and a turbo runs folder as make test leaves them. */
function recorded(): { resultsDir: string; turboRunsDir: string; cleanUp: () => void } {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'test-times-'));
  const resultsDir = path.join(root, '.jest-results');
  const turboRunsDir = path.join(root, '.turbo/runs');
  fs.mkdirSync(resultsDir, { recursive: true });
  fs.mkdirSync(turboRunsDir, { recursive: true });
  const t0 = 1_795_900_000_000;
  fs.writeFileSync(
    path.join(resultsDir, 'steps.log'),
    [
      `${t0} ${t0 + 95_000} install and build`,
      `${t0 + 95_000} ${t0 + 1_295_000} turbo run test`,
      `${t0 + 1_295_000} ${t0 + 1_300_500} chart-test`,
      '',
    ].join('\n'),
  );
  fs.writeFileSync(
    path.join(turboRunsDir, 'run-1.json'),
    JSON.stringify({
      tasks: [
        { package: '@smsgw/e2e', task: 'test', execution: { startTime: t0, endTime: t0 + 900_000, exitCode: 0 } },
        { package: '@smsgw/message', task: 'test', execution: { startTime: t0, endTime: t0 + 120_000, exitCode: 1 } },
        { package: '@smsgw/message', task: 'build', execution: { startTime: t0, endTime: t0 + 30_000, exitCode: 0 } },
      ],
    }),
  );
  fs.writeFileSync(path.join(turboRunsDir, 'cut-short.json'), '{"tasks": [');
  fs.writeFileSync(
    path.join(resultsDir, 'e2e.json'),
    JSON.stringify({
      passed: 3,
      failed: 0,
      skipped: 0,
      failures: [],
      ms: 900_000,
      files: [
        { where: 'e2e/test/fuzz.test.ts', ms: 130_000 },
        { where: 'e2e/test/dashboard.test.ts', ms: 95_400 },
        { where: 'e2e/test/auth.test.ts', ms: 8_200 },
      ],
    }),
  );
  fs.writeFileSync(
    path.join(resultsDir, 'services_message.json'),
    JSON.stringify({
      passed: 1,
      failed: 0,
      skipped: 0,
      failures: [],
      files: [{ where: 'services/message/test/queue.test.ts', ms: 61_000 }],
    }),
  );
  // A part that records no times (the Android JVM tests' totals).
  fs.writeFileSync(path.join(resultsDir, 'android-junit.json'), JSON.stringify({ passed: 5, failed: 0, skipped: 0 }));
  return { resultsDir, turboRunsDir, cleanUp: () => fs.rmSync(root, { recursive: true, force: true }) };
}

describe("make test's closing report of where the time went (scripts/test-times.js)", () => {
  it('when make test recorded its steps, turbo its workspaces and jest its files, then each part is printed with its time, the longest first', () => {
    const dirs = recorded();
    try {
      expect(timeReport(dirs)).toEqual([
        '',
        'Where the time went:',
        '  Steps (21 min 41 s in all):',
        '    turbo run test      20 min 0 s',
        '    install and build   1 min 35 s',
        '    chart-test               5.5 s',
        '  Workspaces (turbo run test, one at a time):',
        '    @smsgw/e2e       15 min 0 s',
        '    @smsgw/message    2 min 0 s',
        '  End-to-end test files (two run at a time):',
        '    e2e/test/fuzz.test.ts        2 min 10 s',
        '    e2e/test/dashboard.test.ts   1 min 35 s',
        '    e2e/test/auth.test.ts             8.2 s',
        '  The slowest test files of the other workspaces (at most 10):',
        '    services/message/test/queue.test.ts    1 min 1 s',
      ]);
    } finally {
      dirs.cleanUp();
    }
  });

  it('when nothing recorded a time, then the report is empty and the closing line stays the last', () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'test-times-empty-'));
    try {
      expect(timeReport({ resultsDir: path.join(root, 'none'), turboRunsDir: path.join(root, 'none-either') })).toEqual([]);
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });
});
