import { expectSucceeded, smoke } from './support/smoke';

describe('the fuzz run at volume (bench/fuzz/run.js) in smoke mode', () => {
  it('when it runs with BENCH_SMOKE=1, then each part passes and it prints its figures and a passing verdict line', async () => {
    const run = await smoke('fuzz/run.js');

    expectSucceeded(run, 60);
    expect(run.output).toMatch(/^agent: 200 in [\d.]+ s, seed \d+: PASS$/m);
    expect(run.output).toMatch(/^dashboard: 100 in [\d.]+ s, seed \d+: PASS$/m);
    expect(run.output).toMatch(/^ {2}frame ack: \d+$/m);
    expect(run.output).toMatch(/^machine: \d+ cores/m);
    expect(run.output).toMatch(/^fuzz verdict: PASS: 300 requests and frames in \d+ s \(agent 200 pass, dashboard 100 pass\)$/m);
  }, 600_000);
});
