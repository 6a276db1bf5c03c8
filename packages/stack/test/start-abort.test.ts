import { afterAll, expect, test } from '@jest/globals';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { startStack } from '../src/index';

const SHARED_POSTGRES = process.env.SMSGW_POSTGRES_URL || 'postgres://postgres@127.0.0.1:5432/postgres';

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'smsgw-start-abort-'));

afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

/** The run's log folder, once startStack has made it. */
function logDir(): string | undefined {
  const name = fs.readdirSync(dataDir).find((n) => n.startsWith('logs-'));
  return name && path.join(dataDir, name);
}

/** The processes that hold a file of `dir` open (a service writes its log there). */
function processesHolding(dir: string): number[] {
  const holders: number[] = [];
  for (const pid of fs.readdirSync('/proc').filter((n) => /^\d+$/.test(n))) {
    let fds: string[];
    try {
      fds = fs.readdirSync(`/proc/${pid}/fd`);
    } catch {
      continue;
    }
    for (const fd of fds) {
      const target = (() => {
        try {
          return fs.readlinkSync(`/proc/${pid}/fd/${fd}`);
        } catch {
          return '';
        }
      })();
      if (target.startsWith(dir)) {
        holders.push(Number(pid));
        break;
      }
    }
  }
  return holders;
}

test('when the start-up is aborted once services run, then it rejects and leaves no process and no database', async () => {
  const abort = new AbortController();
  // Abort as soon as the first service has its log file: it is being started.
  const watch = setInterval(() => {
    const logs = logDir();
    if (logs && fs.existsSync(logs) && fs.readdirSync(logs).some((n) => n.endsWith('.log')))
      abort.abort(new Error('stopped during start-up'));
  }, 20);
  // A stack that starts all the same is stopped, and the test fails.
  const outcome = await startStack({ dataDir, isolated: true, signal: abort.signal })
    .then(
      async (stack) => {
        await stack.stop();
        return 'started';
      },
      (err: Error) => err.message,
    )
    .finally(() => clearInterval(watch));
  expect(outcome).toBe('stopped during start-up');
  const logs = logDir()!;
  expect(fs.readdirSync(logs).length).toBeGreaterThan(0);
  expect(processesHolding(dataDir)).toEqual([]);
  const runId = path.basename(logs).slice('logs-'.length);
  const pool = new pg.Pool({ connectionString: SHARED_POSTGRES, max: 1 });
  try {
    const { rows } = await pool.query('SELECT 1 FROM pg_database WHERE datname = $1', [`smsgw_test_${runId}`]);
    expect(rows).toEqual([]);
  } finally {
    await pool.end();
  }
}, 60_000);
