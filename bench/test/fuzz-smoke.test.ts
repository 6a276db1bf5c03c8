import { spawn } from 'node:child_process';
import path from 'node:path';

const BENCH = path.resolve(__dirname, '..');

describe('the fuzz run at volume (bench/fuzz/run.js) in smoke mode', () => {
  it('when it runs with BENCH_SMOKE=1, then each part passes and it prints its figures and a passing verdict line', async () => {
    const run = await new Promise<{ code: number | null; output: string }>((resolve) => {
      const child = spawn(process.execPath, [path.join(BENCH, 'fuzz/run.js')], {
        env: { ...process.env, BENCH_SMOKE: '1' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let output = '';
      child.stdout.on('data', (c: Buffer) => (output += c.toString()));
      child.stderr.on('data', (c: Buffer) => (output += c.toString()));
      child.on('exit', (code) => resolve({ code, output }));
    });

    if (run.code !== 0) throw new Error(`exit code ${run.code}:\n${run.output.split('\n').slice(-60).join('\n')}`);
    expect(run.output).toMatch(/^agent: 200 in [\d.]+ s, seed \d+: PASS$/m);
    expect(run.output).toMatch(/^dashboard: 100 in [\d.]+ s, seed \d+: PASS$/m);
    expect(run.output).toMatch(/^ {2}frame ack: \d+$/m);
    expect(run.output).toMatch(/^machine: \d+ cores/m);
    expect(run.output).toMatch(/^fuzz verdict: PASS: 300 requests and frames in \d+ s \(agent 200 pass, dashboard 100 pass\)$/m);
  }, 600_000);
});
