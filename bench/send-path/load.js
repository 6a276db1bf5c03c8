'use strict';
/**
 * One measured phase: the same autocannon settings for every phase, the CPU read during the
 * measured run (and, with BENCH_CPU_PROF=1, the services' profilers toggled around it), and the
 * figures kept in the run's results.
 */
const fs = require('node:fs');
const path = require('node:path');
const autocannon = require('autocannon');
const { cpuSampler } = require('./sampling');
const { CONNECTIONS, CPU_PROF_DIR, DURATION_S, PIPELINING, WARMUP_S, round, say } = require('./settings');

/** @typedef {{method?: string, headers?: Record<string, string>, body?: string, requests?: object[]}} LoadOptions */
/** @typedef {ReturnType<typeof summarise> & {messages_accepted_per_s?: number, recipients_per_request?: number, pool?: number}} Phase */
/**
 * What the phases measured so far, and the processes whose CPU they read.
 * @typedef {object} Results
 * @property {import('./sampling').Groups} groups
 * @property {Record<string, Phase>} phases by phase key, in the order they ran
 * @property {Record<string, import('./sampling').CpuReading>} cpu by phase key
 * @property {{idle: Rss, after_send?: Rss, after_bulk?: Rss}} rss resident memory (kB) by process
 * @property {number} agentSentBefore SMS the phone had sent when the send phase started
 * @property {number} agentSentDuringRun SMS the phone sent during the send and bulk phases
 */
/** @typedef {Record<string, number | undefined>} Rss */

/**
 * A warm-up run (discarded), then the measured run; `around` is told when the measured run starts
 * and ends (for the CPU sampler).
 * @param {string | string[]} url
 * @param {LoadOptions & {ca: string}} options
 * @param {{start: () => void, stop: () => void}} around
 */
async function load(url, { method = 'GET', headers = {}, body, requests, ca }, around) {
  const options = {
    url,
    method,
    headers,
    body,
    ...(requests ? { requests } : {}),
    connections: CONNECTIONS,
    pipelining: PIPELINING,
    timeout: 10,
    // autocannon 8 always connects with rejectUnauthorized: false (it spreads tlsOptions and
    // then overrides that flag), so `ca` is passed for completeness but not checked; the TLS
    // handshake and encryption costs are the same either way.
    tlsOptions: { ca },
  };
  say(`  warm-up ${WARMUP_S} s...`);
  await autocannon({ ...options, duration: WARMUP_S });
  say(`  measuring ${DURATION_S} s with ${CONNECTIONS} connections...`);
  around.start();
  try {
    const run = autocannon({ ...options, duration: DURATION_S });
    /** @type {number[]} */
    const perSecond = new Array(DURATION_S).fill(0);
    const t0 = Date.now();
    run.on('response', () => {
      const i = Math.floor((Date.now() - t0) / 1000);
      if (i < DURATION_S) perSecond[i] = (perSecond[i] ?? 0) + 1;
    });
    return Object.assign(await run, { perSecond });
  } finally {
    around.stop();
  }
}

/**
 * The figures of an autocannon result; `okStatus` answers count as accepted.
 * @param {import('autocannon').Result & {perSecond: number[]}} result
 * @param {string} [okStatus]
 */
function summarise(result, okStatus = '200') {
  const ok = result.statusCodeStats?.[okStatus]?.count ?? 0;
  return {
    accepted: ok,
    accepted_per_s: round(ok / result.duration, 1),
    requests_total: result.requests.total,
    requests_per_s_avg: round(result.requests.average, 1),
    latency_ms: {
      avg: round(result.latency.average, 2),
      p50: result.latency.p50,
      p90: result.latency.p90,
      p99: result.latency.p99,
      max: result.latency.max,
    },
    status_codes: Object.fromEntries(Object.entries(result.statusCodeStats ?? {}).map(([k, v]) => [k, v.count])),
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    duration_s: result.duration,
    /** Responses (any status) in each second of the measured run: shows a trend, e.g. as the queue grows. */
    per_second: result.perSecond,
  };
}

/**
 * Measures one phase (`key` in the results) and prints its line.
 * @param {import('./setup').Run} run
 * @param {Results} results
 * @param {{key: string, label: string, url: string | string[], options: LoadOptions, okStatus: string}} phase
 * @returns {Promise<Phase>}
 */
async function measure({ stack, caPem }, results, { key, label, url, options, okStatus }) {
  say(`\n[${label}]`);
  const sampler = cpuSampler(results.groups);
  const profile = CPU_PROF_DIR && key !== 'hello_world';
  const toggleProfilers = () => {
    fs.writeFileSync(path.join(/** @type {string} */ (CPU_PROF_DIR), 'current-phase'), key);
    for (const s of Object.values(stack.services)) if (s.pid) process.kill(s.pid, 'SIGUSR2');
  };
  const around = {
    start: () => {
      if (profile) toggleProfilers();
      sampler.start();
    },
    stop: () => {
      results.cpu[key] = sampler.stop();
      if (profile) toggleProfilers();
    },
  };
  const result = await load(url, { ...options, ca: caPem }, around);
  const p = summarise(result, okStatus);
  results.phases[key] = p;
  say(
    `  ${p.accepted} × ${okStatus} in ${p.duration_s} s → ${p.accepted_per_s}/s, p99 ${p.latency_ms.p99} ms, non-2xx ${p.non2xx}, errors ${p.errors}`,
  );
  say(`  responses per second: ${p.per_second.join(' ')}`);
  return p;
}

module.exports = { measure };
