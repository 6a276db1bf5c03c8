'use strict';

/**
 * The nearest-rank percentile `p` (0 to 100) of ascending `sorted`; NaN when it is empty.
 * @param {number[]} sorted
 * @param {number} p
 */
function percentile(sorted, p) {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

/**
 * Count, median, 99th percentile and maximum of `values` (in any order).
 * @param {Iterable<number>} values
 */
function stats(values) {
  const s = [...values].sort((a, b) => a - b);
  return { n: s.length, p50: percentile(s, 50), p99: percentile(s, 99), max: s.length ? s[s.length - 1] : NaN };
}

module.exports = { percentile, stats };
