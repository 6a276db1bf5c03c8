import { spawn } from 'node:child_process';
import path from 'node:path';

const BENCH = path.resolve(__dirname, '../..');

export interface SmokeRun {
  code: number | null;
  output: string;
}

/** Runs one benchmark (a path under bench/) in smoke mode (BENCH_SMOKE=1: tiny sizes, seconds of load) and returns what it printed. */
export function smoke(script: string, env: Record<string, string> = {}): Promise<SmokeRun> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [path.join(BENCH, script)], {
      env: { ...process.env, BENCH_SMOKE: '1', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (c: Buffer) => (output += c.toString()));
    child.stderr.on('data', (c: Buffer) => (output += c.toString()));
    child.on('exit', (code) => resolve({ code, output }));
  });
}

/** A failed smoke run shows its last lines, where the benchmark says what broke. */
export function expectSucceeded(run: SmokeRun, lines = 40): void {
  if (run.code !== 0) throw new Error(`exit code ${run.code}:\n${run.output.split('\n').slice(-lines).join('\n')}`);
}
