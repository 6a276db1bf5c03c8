import { expectSucceeded, smoke } from './support/smoke';

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
