import { spawn } from 'node:child_process';
import path from 'node:path';

const BENCH = path.resolve(__dirname, '..');

/** Runs one benchmark in smoke mode (BENCH_SMOKE=1: about a second of load on tiny sizes) and returns what it printed. */
function smoke(script: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [path.join(BENCH, script)], {
      env: { ...process.env, BENCH_SMOKE: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (c: Buffer) => (output += c.toString()));
    child.stderr.on('data', (c: Buffer) => (output += c.toString()));
    child.on('exit', (code) => resolve({ code, output }));
  });
}

/** A failed smoke run shows its last lines, where the benchmark says what broke. */
function expectSucceeded(run: { code: number | null; output: string }): void {
  if (run.code !== 0) throw new Error(`exit code ${run.code}:\n${run.output.split('\n').slice(-40).join('\n')}`);
}

describe('every benchmark under bench/ runs end to end in smoke mode', () => {
  it('when make bench (bench/run.js) runs, then it prints its table of send, bulk and OTP figures', async () => {
    const run = await smoke('run.js');
    expectSucceeded(run);
    expect(run.output).toMatch(/hello-world/);
    expect(run.output).toMatch(/send-bulk/);
    expect(run.output).toMatch(/verify-otp/);
    expect(run.output).toContain('written: bench/results/smoke.json');
  }, 300_000);

  it('when the history benchmark runs, then it prints the latency of each query shape', async () => {
    const run = await smoke('history/run.js');
    expectSucceeded(run);
    expect(run.output).toMatch(/p95/);
  }, 300_000);

  it('when the scheduler benchmark runs, then it prints the lateness of the timers', async () => {
    const run = await smoke('scheduler/run.js');
    expectSucceeded(run);
    expect(run.output).toMatch(/burst at one instant: [1-9]\d* fired/);
    expect(run.output).toMatch(/missing: 0;/);
  }, 300_000);

  it('when the webhook benchmark runs, then it prints the events delivered per second', async () => {
    const run = await smoke('webhook/run.js');
    expectSucceeded(run);
    expect(run.output).toMatch(/events\/s/);
  }, 300_000);

  it('when the tracing benchmark runs, then it compares sends per second with tracing off, spans only and exported', async () => {
    const run = await smoke('tracing/run.js');
    expectSucceeded(run);
    expect(run.output).toContain('ratio_exported_to_off');
  }, 300_000);

  it('when the failover benchmark runs, then every message queued on the phone that left goes out once on another phone', async () => {
    const run = await smoke('failover/run.js');
    expectSucceeded(run);
    expect(run.output).toMatch(/from the phone going offline: p50 [\d.]+ s, p99 [\d.]+ s/);
    expect(run.output).toMatch(/missing: 0; sent twice: 0/);
  }, 300_000);
});
