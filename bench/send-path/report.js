'use strict';
/**
 * The report: the table of the five phases and the ratio, memory and CPU by process, what other
 * programs used, and bench/results/latest.json (smoke.json for a smoke run).
 */
const fs = require('node:fs');
const path = require('node:path');
const { REPO_ROOT } = require('@smsgw/stack');
const { SMOKE } = require('../lib/knobs');
const s = require('./settings');

/** Postgres work of other programs (another database) and its background processes. */
const PG_OTHER = 'postgres (WAL, checkpoints, other databases)';
const PHASE_KEYS = ['hello_world', 'send', 'bulk', 'otp_send', 'otp_verify'];

/**
 * Prints the tables and writes the JSON report; returns it.
 * @param {import('./setup').Run} run
 * @param {import('./load').Results} results
 */
function report(run, { phases, cpu, rss, agentSentDuringRun }) {
  const {
    hello_world: helloWorld,
    send,
    bulk,
    otp_send: otpSend,
    otp_verify: otpVerify,
  } = /** @type {Record<string, import('./load').Phase>} */ (phases);
  if (!helloWorld || !send || !bulk || !otpSend || !otpVerify) throw new Error('a phase did not run');
  const ratio = s.round(send.accepted_per_s / helloWorld.accepted_per_s, 3);
  /** @param {import('./load').Phase} p */
  const row = (p) => [p.latency_ms.p50, p.latency_ms.p99, p.non2xx, p.errors];
  s.say(
    '\n' +
      formatTable([
        ['measure', 'per second', 'p50 ms', 'p99 ms', 'non-2xx', 'errors'],
        ['1. hello-world (Koa HTTPS)', `${helloWorld.accepted_per_s} req`, ...row(helloWorld)],
        ['2. /v1/sms/send accepted', `${send.accepted_per_s} req`, ...row(send)],
        [`3. send-bulk ×${s.BULK_SIZE}`, `${bulk.messages_accepted_per_s} msg (${bulk.accepted_per_s} req)`, ...row(bulk)],
        ['4. send-otp accepted', `${otpSend.accepted_per_s} req`, ...row(otpSend)],
        ['5. verify-otp answered 200', `${otpVerify.accepted_per_s} req`, ...row(otpVerify)],
      ]),
  );
  s.say(`\nratio send / hello-world: ${ratio} (goal ≥ ${s.GOAL_RATIO}: ${ratio >= s.GOAL_RATIO ? 'met' : 'NOT met'})`);
  for (const [key, p] of Object.entries(phases)) {
    const others = Object.entries(p.status_codes).filter(([code]) => code !== '200');
    if (others.length > 0) s.say(`  ${key}: other statuses ${others.map(([c, n]) => `${c}×${n}`).join(', ')}`);
  }

  const afterSend = rss.after_send ?? {};
  const afterBulk = rss.after_bulk ?? {};
  const rssNames = [...new Set([...Object.keys(rss.idle), ...Object.keys(afterBulk)])];
  const mb = (/** @type {number | undefined} */ kb) => (kb === undefined ? '-' : (kb / 1024).toFixed(1));
  s.say(
    '\n' +
      formatTable([
        ['RSS (MB)', 'idle', 'after send', 'after bulk'],
        ...rssNames.map((n) => [
          n,
          mb(rss.idle[n]),
          n === 'hello-world' ? '-' : mb(afterSend[n]),
          n === 'hello-world' ? '-' : mb(afterBulk[n]),
        ]),
      ]),
  );

  const cpuNames = [...new Set(Object.values(cpu).flatMap((c) => Object.keys(c.cores)))];
  s.say(
    '\n' +
      formatTable([
        ['CPU (cores, measured phase)', 'hello-world', 'send', 'bulk', 'send-otp', 'verify-otp'],
        ...cpuNames.map((n) => [n, ...PHASE_KEYS.map((k) => cpu[k]?.cores[n] ?? '-')]),
        ['machine busy (all processes)', ...PHASE_KEYS.map((k) => cpu[k]?.machine_busy_cores ?? '-')],
        ['  of which not this run', ...PHASE_KEYS.map((k) => cpu[k]?.other_processes_cores ?? '-')],
      ]),
  );
  s.say(
    "(Postgres, Redis and NATS are shared instances: the Postgres backends of this run's database are told apart; " +
      'the other Postgres processes, redis-server and nats-server count whatever they do for anyone)',
  );
  // Other programs: their own processes, or work they give the shared Postgres (another database).
  const disturbed = Object.entries(cpu)
    .map(([k, c]) => {
      const pgOther = c.cores[PG_OTHER] ?? NaN;
      const other = c.other_processes_cores + (k === 'hello_world' ? pgOther : Math.max(0, pgOther - 0.15));
      return /** @type {const} */ ([k, { ...c, other_processes_cores: s.round(other, 2) }]);
    })
    .filter(([, c]) => c.other_processes_cores > 0.2);
  if (disturbed.length > 0) {
    s.say(
      `WARNING: other programs used CPU during ${disturbed.map(([k, c]) => `${k} (${c.other_processes_cores} cores)`).join(', ')}; ` +
        'on 2 cores that lowers these figures: run again on a quiet machine to compare',
    );
  }
  s.say(
    `the simulated phone sent ${agentSentDuringRun} SMS during the send and bulk phases (pacing 2-3 s per SMS: the queue keeps what it accepted)`,
  );

  const written = {
    date: new Date().toISOString(),
    machine: run.machine,
    settings: {
      tool: 'autocannon 8 (programmatic), in the bench process',
      connections: s.CONNECTIONS,
      pipelining: s.PIPELINING,
      warmup_s: s.WARMUP_S,
      duration_s: s.DURATION_S,
      tls: 'HTTPS with the stack CA passed as tlsOptions.ca (autocannon 8 forces rejectUnauthorized:false, so it is not verified)',
      stack_env: {
        LOG_LEVEL: 'warn',
        RATE_LIMIT_PER_MINUTE: s.RATE_LIMIT_PER_MINUTE,
        dispatch_pacing: 'default (2000-3000 ms per SMS per phone)',
        ...s.EXTRA_STACK_ENV,
      },
      gateways: s.GATEWAYS,
      experiment:
        Object.keys(s.EXTRA_STACK_ENV).length > 0 || s.GATEWAYS > 1
          ? { ...s.EXTRA_STACK_ENV, ...(s.GATEWAYS > 1 ? { gateways: s.GATEWAYS } : {}) }
          : undefined,
      notes: [
        'The rate limiter is not bypassed: RATE_LIMIT_PER_MINUTE is raised so it never refuses, but its Redis sliding-window script runs on every request.',
        'Only 200 responses count as accepted; non-2xx are reported.',
        'send and send-bulk use the live key with X-Device-ID of one device kept online by a simulated phone (android-agent --driver simulator).',
        'hello-world is a bare Koa app over https.createServer with the stack certificate, forked into its own process.',
        'send-otp uses the live key and a new number for every request (the limit of 10 OTPs an hour per number never refuses); verify-otp uses a pool of test-key OTPs (code 123456) made after the send-otp phase, each verified with a wrong code, a wrong code, then the right one (three 200 answers per OTP).',
      ],
      send_body: { to: s.TO, message: s.TEXT },
      bulk_recipients_per_request: s.BULK_SIZE,
    },
    results: {
      hello_world: helloWorld,
      send,
      bulk,
      otp_send: otpSend,
      otp_verify: otpVerify,
      ratio_send_over_hello_world: ratio,
      goal_ratio: s.GOAL_RATIO,
      goal_met: ratio >= s.GOAL_RATIO,
    },
    rss_kb: { idle: rss.idle, after_send: rss.after_send, after_bulk: rss.after_bulk },
    cpu_cores_during_measure: cpu,
    agent_sms_sent_during_load: agentSentDuringRun,
    disturbed_by_other_programs: Object.fromEntries(disturbed.map(([k, c]) => [k, c.other_processes_cores])),
    cpu_profiles: s.CPU_PROF_DIR,
    elapsed_s: s.round((Date.now() - run.started) / 1000, 1),
  };
  // A smoke run's figures mean nothing: they never replace the last real run's.
  const file = path.join(s.RESULTS_DIR, SMOKE ? 'smoke.json' : 'latest.json');
  fs.writeFileSync(file, `${JSON.stringify(written, null, 2)}\n`);
  s.say(`\nwritten: ${path.relative(REPO_ROOT, file)}`);
  return written;
}

/**
 * Rows as aligned columns: the first left-aligned, the others right-aligned, a rule under the head.
 * @param {(string | number | undefined)[][]} rows
 */
function formatTable(rows) {
  const head = rows[0] ?? [];
  const widths = head.map((_, i) => Math.max(...rows.map((r) => String(r[i]).length)));
  const line = (/** @type {(string | number | undefined)[]} */ r) =>
    r.map((c, i) => (i === 0 ? String(c).padEnd(widths[i] ?? 0) : String(c).padStart(widths[i] ?? 0))).join('  ');
  return [line(head), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.slice(1).map(line)].join('\n');
}

module.exports = { report };
