'use strict';
/** The send-path benchmark's settings (knobs from the environment), paths and output. */
const path = require('node:path');
const { intEnv } = require('../lib/knobs');

const CONNECTIONS = intEnv('BENCH_CONNECTIONS', 50, 2);
const DURATION_S = intEnv('BENCH_DURATION', 15, 1);
const WARMUP_S = intEnv('BENCH_WARMUP', 3, 1);
const PIPELINING = 1;
const RATE_LIMIT_PER_MINUTE = '1000000000';
const BULK_SIZE = 100;
const TO = '+33612345678';
const TEXT = 'Benchmark: bonjour depuis la passerelle SMS';
const GOAL_RATIO = 0.3;
/** OTPs made (test key, code 123456) before the verify phase; each serves three verifies (24,000 in all: 1,300 a second for 18 s). */
const OTP_POOL = intEnv('BENCH_OTP_POOL', 8000, 20);

const BENCH_DIR = path.join(__dirname, '..');
const DATA_DIR = path.join(BENCH_DIR, '.data');
const RESULTS_DIR = path.join(BENCH_DIR, 'results');
const RUN_ID = new Date().toISOString().replace(/[:.]/g, '-');
const CPU_PROF_DIR = process.env.BENCH_CPU_PROF === '1' ? path.join(RESULTS_DIR, `cpu-prof-${RUN_ID}`) : undefined;
/** @type {Record<string, string>} */
const EXTRA_STACK_ENV = process.env.BENCH_STACK_ENV ? JSON.parse(process.env.BENCH_STACK_ENV) : {};
const GATEWAYS = intEnv('BENCH_GATEWAYS', 1);

/**
 * Prints one line.
 * @param {string} line
 */
const say = (line) => process.stdout.write(`${line}\n`);

/**
 * `n` rounded to `digits` decimals.
 * @param {number} n
 * @param {number} [digits]
 */
function round(n, digits = 0) {
  const f = 10 ** digits;
  return Math.round(n * f) / f;
}

module.exports = {
  BENCH_DIR,
  BULK_SIZE,
  CONNECTIONS,
  CPU_PROF_DIR,
  DATA_DIR,
  DURATION_S,
  EXTRA_STACK_ENV,
  GATEWAYS,
  GOAL_RATIO,
  OTP_POOL,
  PIPELINING,
  RATE_LIMIT_PER_MINUTE,
  RESULTS_DIR,
  RUN_ID,
  TEXT,
  TO,
  WARMUP_S,
  round,
  say,
};
