import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../../..');
const SCRIPT = path.join(ROOT, 'scripts/go-test-summary.js');
const fixture = (name: string) => fs.readFileSync(path.join(__dirname, 'fixtures', name), 'utf8');

/** Runs the summary script as `make chart-test` does, on `stream`, with its results in a folder of the test's. */
function summarise(stream: string) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'go-summary-'));
  try {
    const run = spawnSync(process.execPath, [SCRIPT, 'fixture'], {
      input: stream,
      encoding: 'utf8',
      env: { ...process.env, TEST_RESULTS_DIR: dir },
    });
    const totals = JSON.parse(fs.readFileSync(path.join(dir, 'fixture.json'), 'utf8')) as {
      passed: number;
      failed: number;
      skipped: number;
    };
    return { status: run.status, stdout: run.stdout, totals };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

describe('the summary of go test -json (scripts/go-test-summary.js)', () => {
  it('when go downloads modules before the tests pass, then the run is green and the download lines are not failures', () => {
    const stream = fixture('go-test-downloads-pass.jsonl');
    expect(stream).toMatch(/^go: downloading /m);
    const r = summarise(stream);
    expect(r.totals).toEqual({ passed: 1, failed: 0, skipped: 0 });
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('fixture: 1 passed, 0 failed, 0 skipped');
  });

  it('when a package does not compile, then it counts as a failure and its compiler error is printed', () => {
    const stream = fixture('go-test-compile-error.jsonl');
    const r = summarise(stream);
    expect(r.totals).toEqual({ passed: 1, failed: 1, skipped: 0 });
    expect(r.status).toBe(1);
    expect(r.stdout).toContain('build failed: example.com/gosum/bad');
    expect(r.stdout).toContain('cannot use "no" (untyped string constant) as int value');
    expect(r.stdout).not.toContain('downloading');
  });

  it('when a test fails, then its output is printed and it counts once, not again for its package', () => {
    const events = [
      { Action: 'run', Package: 'p', Test: 'TestA' },
      { Action: 'output', Package: 'p', Test: 'TestA', Output: '    a_test.go:9: want 2, got 3\n' },
      { Action: 'fail', Package: 'p', Test: 'TestA' },
      { Action: 'pass', Package: 'p', Test: 'TestB' },
      { Action: 'fail', Package: 'p' },
    ];
    const r = summarise(events.map((e) => JSON.stringify(e)).join('\n'));
    expect(r.totals).toEqual({ passed: 1, failed: 1, skipped: 0 });
    expect(r.stdout).toContain('want 2, got 3');
  });

  it('when the go command itself fails (no JSON, no test), then the run is a failure that says why', () => {
    const r = summarise('go: example.com/x@v9.9.9: reading https://proxy.golang.org/...: 404 Not Found\n');
    expect(r.status).toBe(1);
    expect(r.totals.failed).toBeGreaterThan(0);
    expect(r.stdout).toContain('404 Not Found');
  });

  it('when nothing was tested at all, then the run is a failure', () => {
    const r = summarise('go: downloading example.com/y v1.0.0\n');
    expect(r.status).toBe(1);
    expect(r.stdout).toContain('no test ran');
  });

  it('when the real go toolchain runs a module with a download, a pass and a compile error under an empty module cache, then the summary says 1 passed, 1 failed', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'go-summary-module-'));
    const cache = path.join(dir, 'cache');
    try {
      fs.cpSync(path.join(__dirname, 'fixtures/go-module'), path.join(dir, 'module'), { recursive: true });
      const run = spawnSync('go', ['test', '-json', '-count=1', './...'], {
        cwd: path.join(dir, 'module'),
        encoding: 'utf8',
        env: { ...process.env, GOMODCACHE: cache, GOPATH: path.join(dir, 'gopath'), GOFLAGS: '-mod=mod', GOTOOLCHAIN: 'local' },
      });
      const stream = `${run.stderr}${run.stdout}`;
      expect(stream).toMatch(/^go: downloading github.com\/google\/uuid /m);
      const r = summarise(stream);
      expect(r.totals).toEqual({ passed: 1, failed: 1, skipped: 0 });
      expect(r.stdout).toContain('build failed');
    } finally {
      // The module cache is written read-only.
      if (fs.existsSync(cache)) execFileSync('chmod', ['-R', 'u+w', cache]);
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
