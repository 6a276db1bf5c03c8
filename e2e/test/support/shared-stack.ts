// One stack started for the whole e2e run, for the files that change nothing the others rely on
// (TestSystem.shared()): each makes its own clients and phones on it, and none restarts a service,
// sets a setting of its own or counts what the whole system did. Starting a stack costs seconds of
// both cores; a file that needs a setting, a restart or the system to itself starts its own.
import fs from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from '@smsgw/stack';

/** Every e2e stack's settings: pacing shortened so that tests do not wait 2-3 s per SMS. */
export const E2E_ENV: Record<string, string> = {
  LOG_LEVEL: 'debug',
  DISPATCH_INTERVAL_MIN_MS: '50',
  DISPATCH_INTERVAL_MAX_MS: '100',
  DISPATCH_SWEEP_MS: '1000',
  // The tests' lost wake-ups are found within the sweep, as before the idle waits grew.
  DISPATCH_IDLE_SWEEP_MAX_MS: '1000',
  DISPATCH_LEASE_MS: '5000',
};

/**
 * The shared stack's own. Every file calls from 127.0.0.1, so one file's refused keys, failed
 * sign-ins or sign-ups would count against the others' budgets (auth-flood.test.ts and
 * dashboard.test.ts test those budgets on stacks of their own). Phones send 10-20 ms apart and
 * test keys' phones answer in 50 ms, which no file sharing the stack waits on.
 */
export const SHARED_ENV: Record<string, string> = {
  ...E2E_ENV,
  DISPATCH_INTERVAL_MIN_MS: '10',
  DISPATCH_INTERVAL_MAX_MS: '20',
  AUTH_FAILURE_LIMIT: '1000000',
  DASHBOARD_SIGNIN_MAX_FAILURES: '1000000',
  DASHBOARD_SIGNUP_MAX_PER_ADDRESS: '1000000',
  TEST_MODE_SENT_DELAY_MS: '50',
  TEST_MODE_DELIVERY_DELAY_MS: '50',
};

export const E2E_DATA_DIR = path.join(REPO_ROOT, '.stack/e2e');

/** Where the run's global setup writes how to reach the shared stack. */
export const SHARED_STACK_FILE = path.join(E2E_DATA_DIR, 'shared-stack.json');

/** Whether any of the files this run selected asks for the shared stack. */
export function runNeedsSharedStack(testDir: string, patterns: readonly string[]): boolean {
  const files = fs
    .readdirSync(testDir)
    .filter((f) => f.endsWith('.test.ts'))
    .map((f) => path.join(testDir, f));
  const selected = patterns.length === 0 ? files : files.filter((f) => patterns.some((p) => new RegExp(p, 'i').test(f)));
  return selected.some((f) => fs.readFileSync(f, 'utf8').includes('TestSystem.shared()'));
}

export function removeSharedStackFile(): void {
  fs.rmSync(SHARED_STACK_FILE, { force: true });
}
