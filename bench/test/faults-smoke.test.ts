import { spawn } from 'node:child_process';
import path from 'node:path';

const BENCH = path.resolve(__dirname, '..');

/** Runs bench/faults/run.js in smoke mode (a few hundred messages, three faults) and returns what it printed. */
function smoke(): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [path.join(BENCH, 'faults/run.js')], {
      env: { ...process.env, BENCH_SMOKE: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (c: Buffer) => (output += c.toString()));
    child.stderr.on('data', (c: Buffer) => (output += c.toString()));
    child.on('exit', (code) => resolve({ code, output }));
  });
}

describe('the faults benchmark in smoke mode', () => {
  it('when a service is killed, Redis restarted and a phone killed under load, then nothing is lost or doubled and every event arrives with one id', async () => {
    const run = await smoke();
    if (run.code !== 0) throw new Error(`exit code ${run.code}:\n${run.output.split('\n').slice(-40).join('\n')}`);
    expect(run.output).toMatch(/\| SIGKILL message +\|/);
    expect(run.output).toMatch(/\| restart redis +\|/);
    expect(run.output).toMatch(/\| SIGKILL phone-0 +\|/);
    expect(run.output).toContain('lost: 0; sent twice: 0; events missing: 0; events with two ids: 0');
  }, 900_000);
});
