'use strict';
/**
 * `make bench`: one run that measures, on this machine,
 *   1. a bare Koa HTTPS hello-world (its own process) — the ceiling of one Node HTTPS process;
 *   2. POST /v1/sms/send accepted (200) with every service running and one simulated phone online;
 *   3. messages accepted per second through POST /v1/sms/send-bulk (100 recipients a request);
 *   4. POST /v1/sms/send-otp (live key, a new number for every request: the 10-an-hour limit per
 *      number is never hit; the client's pumping guard off) and 5. POST /v1/sms/verify-otp (a pool of test-key OTPs made first,
 *      each verified wrong, wrong, then right: three 200 answers per OTP);
 * with the same autocannon settings for each, plus each service's resident memory (idle and after
 * the load) and the CPU each process used during each measured phase.
 * Prints a table and writes bench/results/latest.json.
 *
 * BENCH_SMOKE=1: a smoke run (1 s phases, 2 connections; see knobs.js).
 * Knobs (environment): BENCH_CONNECTIONS (50), BENCH_DURATION (15 s), BENCH_WARMUP (3 s),
 * BENCH_GATEWAYS (1; more starts more gateway replicas and spreads the connections over them),
 * BENCH_CPU_PROF=1 (each service writes a V8 CPU profile of the send and bulk phases to
 * bench/results/cpu-prof-<run>/; summarise with `node bench/profile-summary.js <dir>`).
 *
 * Each phase is a module of send-path/ (the settings, the set-up, the sampling and the report
 * too); this script runs them in order and stops everything it started on the way out.
 */
const path = require('node:path');
const { REPO_ROOT } = require('@smsgw/stack');
const { checkBulk, measureBulk } = require('./send-path/bulk');
const { cleanupAll, cleanupOnSignals } = require('./send-path/cleanup');
const { measureHelloWorld, startHelloWorld } = require('./send-path/hello-world');
const { measureOtpSend } = require('./send-path/otp-send');
const { makeOtpPool, measureOtpVerify } = require('./send-path/otp-verify');
const { report } = require('./send-path/report');
const { startSampling } = require('./send-path/sampling');
const { checkSend, measureSend } = require('./send-path/send');
const { CPU_PROF_DIR, say } = require('./send-path/settings');
const { startRun } = require('./send-path/setup');

async function main() {
  const run = await startRun();
  // One of each request, the CA verified, before the load.
  const sent = await checkSend(run);
  const bulk = await checkBulk(run);
  say(`  check: send → 200 ${sent.status} (${sent.message_id}); send-bulk → 200, ${bulk.total_recipients} messages queued`);
  const hello = await startHelloWorld(run);
  const results = await startSampling(run, hello.child);

  await measureHelloWorld(run, results, hello);
  await measureSend(run, results);
  await measureBulk(run, results);
  await measureOtpSend(run, results);
  const pool = await makeOtpPool(run);
  await measureOtpVerify(run, results, pool);
  return report(run, results);
}

cleanupOnSignals();
void main()
  .then(
    () => 0,
    (/** @type {Error} */ err) => {
      say(`\nbenchmark failed: ${err.stack ?? String(err)}`);
      return 1;
    },
  )
  .then(async (code) => {
    say('stopping everything this run started...');
    await cleanupAll();
    if (CPU_PROF_DIR) say(`CPU profiles: ${path.relative(REPO_ROOT, CPU_PROF_DIR)}`);
    process.exit(code);
  });
