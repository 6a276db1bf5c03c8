'use strict';
/**
 * The benchmarks' knobs. `BENCH_SMOKE=1` runs any benchmark as a smoke test: about a second of
 * load on tiny sizes, so that `make test` runs every benchmark end to end (tools of its own under
 * bench/test) and none can rot unseen; its figures mean nothing. A knob set in the environment
 * wins over both sizes.
 */
const SMOKE = process.env.BENCH_SMOKE === '1';

/**
 * An integer knob: `name` from the environment, else `full` (or `smoke` in a smoke run).
 * `min` is the smallest value accepted (1 unless the knob may be 0).
 * @param {string} name
 * @param {number} full
 * @param {number} [smoke]
 * @param {number} [min]
 */
function intEnv(name, full, smoke = full, min = 1) {
  const value = process.env[name];
  if (value === undefined || value === '') return SMOKE ? smoke : full;
  const n = Number(value);
  if (!Number.isInteger(n) || n < min) throw new Error(`${name} must be an integer of at least ${min}, got ${value}`);
  return n;
}

module.exports = { SMOKE, intEnv };
