'use strict';
/**
 * The per-SMS account of the whole path: what the platform did for each SMS that ended over a
 * window, read from the servers' own counters at its start and end.
 *
 *   const account = await PathAccount.open({ postgresUrl, database, natsMonitorUrl, redisUrl, metricsUrls });
 *   const start = await account.snapshot();
 *   ...
 *   const report = account.perSms(start, await account.snapshot(), smsEnded);
 *
 * - Postgres: `pg_stat_statements` of the run's database (statements, rows, execution time,
 *   planning (with `pg_stat_statements.track_planning`) and WAL bytes, each per SMS, the costliest
 *   first), commits, connections opened, rows written per table (inserts,
 *   updates and how many of them were HOT) and the cluster's WAL bytes. Needs a server started
 *   with `shared_preload_libraries=pg_stat_statements` (throughput.js starts a private one).
 * - gRPC: calls handled by each service, by method (`smsgw_rpc_server_duration_seconds_count`).
 * - HTTP: requests answered by the gateway and the hub, by route (`smsgw_http_server_duration_seconds_count`).
 * - NATS: messages and bytes in and out of the server (`/varz` of its monitoring endpoint).
 * - Redis: commands processed, by command (`INFO commandstats`).
 */
const http = require('node:http');
const pg = require('pg');
const { Redis } = require('ioredis');

function getJson(url) {
  return new Promise((resolve, reject) => {
    http
      .get(url, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c) => (text += c));
        res.on('end', () => {
          try {
            resolve(JSON.parse(text));
          } catch (err) {
            reject(err);
          }
        });
      })
      .on('error', reject);
  });
}

function getText(url) {
  return new Promise((resolve, reject) => {
    http
      .get(url, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c) => (text += c));
        res.on('end', () => resolve(text));
      })
      .on('error', reject);
  });
}

/** Sums the samples of `metric` in a Prometheus text by the value of `label`. */
function sumBy(text, metric, label) {
  const out = {};
  const re = new RegExp(`^${metric}\\{([^}]*)\\} ([0-9.e+-]+)$`, 'gm');
  for (const m of text.matchAll(re)) {
    const key = new RegExp(`${label}="([^"]*)"`).exec(m[1])?.[1] ?? '';
    out[key] = (out[key] ?? 0) + Number(m[2]);
  }
  return out;
}

const diff = (a = 0, b = 0) => b - a;
const round = (n, digits = 2) => Number(n.toFixed(digits));

class PathAccount {
  static async open(options) {
    const db = new pg.Client({ connectionString: options.postgresUrl });
    await db.connect();
    await db.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
    const redis = new Redis(options.redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1 });
    await redis.connect();
    return new PathAccount(options, db, redis);
  }

  constructor(options, db, redis) {
    this.options = options;
    this.db = db;
    this.redis = redis;
  }

  async snapshot() {
    const { database, natsMonitorUrl, metricsUrls } = this.options;
    // Postgres reports a backend's counters when its transaction ends, flushed about every second.
    await new Promise((r) => setTimeout(r, 1100));
    const statements = await this.db.query(
      `SELECT queryid::text AS id, query, calls::float8, rows::float8, total_exec_time AS exec_ms, total_plan_time AS plan_ms,
              plans::float8, wal_bytes::float8, (shared_blks_hit + shared_blks_read)::float8 AS blocks
       FROM pg_stat_statements s JOIN pg_database d ON d.oid = s.dbid WHERE d.datname = $1`,
      [database],
    );
    // pg_stat_all_tables reads the database it is asked in: ask the run's database for its own tables.
    const runDb = new pg.Client({ connectionString: withDatabase(this.options.postgresUrl, database) });
    await runDb.connect();
    let runTables;
    let commits;
    let sessions;
    try {
      runTables = (await runDb.query(TABLES_SQL)).rows;
      const counts = (
        await runDb.query(
          'SELECT xact_commit::float8 AS commits, sessions::float8 AS sessions FROM pg_stat_database WHERE datname = current_database()',
        )
      ).rows[0];
      commits = Number(counts.commits);
      sessions = Number(counts.sessions);
    } finally {
      await runDb.end();
    }
    const wal = (await this.db.query('SELECT wal_bytes::float8 AS bytes, wal_records::float8 AS records FROM pg_stat_wal')).rows[0];
    const varz = natsMonitorUrl ? await getJson(`${natsMonitorUrl}/varz`) : undefined;
    // Each service names its connection: what each published (in) and was sent (out).
    const natsConns = {};
    if (natsMonitorUrl) {
      for (const c of (await getJson(`${natsMonitorUrl}/connz?limit=10000`)).connections ?? []) {
        const name = c.name || 'unnamed';
        const seen = (natsConns[name] ??= { in: 0, out: 0 });
        seen.in += c.in_msgs;
        seen.out += c.out_msgs;
      }
    }
    const info = await this.redis.info('commandstats');
    const commands = {};
    for (const m of info.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) commands[m[1]] = Number(m[2]);
    const rpc = {};
    const httpRequests = {};
    for (const [service, url] of Object.entries(metricsUrls)) {
      const text = await getText(url).catch(() => '');
      for (const [method, n] of Object.entries(sumBy(text, 'smsgw_rpc_server_duration_seconds_count', 'rpc_method')))
        rpc[`${service} ${method}`] = n;
      for (const [route, n] of Object.entries(sumBy(text, 'smsgw_http_server_duration_seconds_count', 'http_route')))
        httpRequests[`${service} ${route}`] = n;
    }
    return {
      statements: new Map(statements.rows.map((r) => [r.id, r])),
      tables: new Map(runTables.map((r) => [r.name, r])),
      commits,
      sessions,
      wal,
      nats: varz && { in_msgs: varz.in_msgs, out_msgs: varz.out_msgs, in_bytes: varz.in_bytes, out_bytes: varz.out_bytes },
      natsConns,
      commands,
      rpc,
      http: httpRequests,
    };
  }

  /** What happened between two snapshots, per SMS ended in between (`sms`). */
  perSms(a, b, sms) {
    const per = (n) => round(n / sms, 3);
    const statements = [...b.statements.values()]
      .map((s) => {
        const before = a.statements.get(s.id);
        return {
          query: s.query.replace(/\s+/g, ' ').slice(0, 160),
          calls: diff(before?.calls, s.calls),
          rows: diff(before?.rows, s.rows),
          exec_ms: diff(before?.exec_ms, s.exec_ms),
          plans: diff(before?.plans, s.plans),
          plan_ms: diff(before?.plan_ms, s.plan_ms),
          wal_bytes: diff(before?.wal_bytes, s.wal_bytes),
          blocks: diff(before?.blocks, s.blocks),
        };
      })
      .filter((s) => s.calls > 0)
      .sort((x, y) => y.exec_ms + y.plan_ms - (x.exec_ms + x.plan_ms));
    const total = statements.reduce(
      (t, s) => ({
        calls: t.calls + s.calls,
        rows: t.rows + s.rows,
        exec_ms: t.exec_ms + s.exec_ms,
        plans: t.plans + s.plans,
        plan_ms: t.plan_ms + s.plan_ms,
      }),
      { calls: 0, rows: 0, exec_ms: 0, plans: 0, plan_ms: 0 },
    );
    const tables = [...b.tables.values()]
      .map((t) => {
        const before = a.tables.get(t.name);
        return {
          table: t.name,
          inserted: per(diff(before?.ins, t.ins)),
          updated: per(diff(before?.upd, t.upd)),
          hot: per(diff(before?.hot, t.hot)),
          deleted: per(diff(before?.del, t.del)),
          seq_scans: diff(before?.seq_scans, t.seq_scans),
          seq_rows_read_per_sms: per(diff(before?.seq_rows, t.seq_rows)),
          // Analyses (by anyone, autovacuum included) before the window and during it: until a
          // table's statistics describe its steady state, its plans are those of its first rows.
          analyses_before: before?.analyses ?? 0,
          analyses_during: diff(before?.analyses, t.analyses),
        };
      })
      .filter((t) => t.inserted + t.updated + t.deleted + t.seq_rows_read_per_sms > 0)
      .sort((x, y) => y.inserted + y.updated - (x.inserted + x.updated));
    const byKey = (x, y) =>
      Object.fromEntries(
        Object.keys(y)
          .map((k) => [k, per(diff(x[k], y[k]))])
          .filter(([, v]) => v > 0)
          .sort((p, q) => q[1] - p[1]),
      );
    const commands = byKey(a.commands, b.commands);
    return {
      sms,
      postgres: {
        statements_per_sms: per(total.calls),
        plans_per_sms: per(total.plans),
        plan_ms_per_sms: per(total.plan_ms),
        rows_per_sms: per(total.rows),
        exec_ms_per_sms: per(total.exec_ms),
        commits_per_sms: per(diff(a.commits, b.commits)),
        // Connections opened to the run's database meanwhile (the account's own one per snapshot left
        // out): each is a new backend, its caches warmed and its statements prepared again.
        sessions_opened: Math.max(0, diff(a.sessions, b.sessions) - 1),
        wal_bytes_per_sms: Math.round(diff(a.wal.bytes, b.wal.bytes) / sms),
        rows_written_per_sms: tables,
        top_statements: statements.slice(0, 15).map((s) => ({
          calls_per_sms: per(s.calls),
          rows_per_call: round(s.rows / s.calls, 1),
          exec_ms_per_sms: per(s.exec_ms),
          plans_per_call: round(s.plans / s.calls, 2),
          plan_ms_per_sms: per(s.plan_ms),
          wal_bytes_per_sms: Math.round(s.wal_bytes / sms),
          blocks_per_call: round(s.blocks / s.calls, 1),
          query: s.query,
        })),
        // Every statement run at least once in 100 SMS, the most frequent first: what each SMS costs in
        // statements and commits, the cheap ones too (a foreign key's check, a BEGIN, a timer's write).
        statements_by_calls: statements
          .filter((s) => s.calls / sms >= 0.01)
          .sort((x, y) => y.calls - x.calls)
          .map((s) => ({
            calls_per_sms: per(s.calls),
            rows_per_call: round(s.rows / s.calls, 1),
            blocks_per_call: round(s.blocks / s.calls, 1),
            plans_per_call: round(s.plans / s.calls, 2),
            query: s.query.slice(0, 100),
          })),
      },
      grpc_calls_per_sms: byKey(a.rpc, b.rpc),
      http_requests_per_sms: byKey(a.http, b.http),
      nats_per_sms: a.nats && {
        msgs_in: per(b.nats.in_msgs - a.nats.in_msgs),
        msgs_out: per(b.nats.out_msgs - a.nats.out_msgs),
        bytes_in: Math.round((b.nats.in_bytes - a.nats.in_bytes) / sms),
        bytes_out: Math.round((b.nats.out_bytes - a.nats.out_bytes) / sms),
        by_connection: Object.fromEntries(
          Object.entries(b.natsConns)
            .map(([name, c]) => [name, { in: per(c.in - (a.natsConns[name]?.in ?? 0)), out: per(c.out - (a.natsConns[name]?.out ?? 0)) }])
            .filter(([, c]) => c.in + c.out > 0),
        ),
      },
      redis_commands_per_sms: {
        total: round(
          Object.values(commands).reduce((n, v) => n + v, 0),
          3,
        ),
        ...commands,
      },
    };
  }

  async close() {
    await this.db.end();
    this.redis.disconnect();
  }
}

const TABLES_SQL = `SELECT schemaname || '.' || relname AS name, n_tup_ins::float8 AS ins, n_tup_upd::float8 AS upd,
  n_tup_hot_upd::float8 AS hot, n_tup_del::float8 AS del, seq_scan::float8 AS seq_scans, coalesce(seq_tup_read, 0)::float8 AS seq_rows,
  (analyze_count + autoanalyze_count)::float8 AS analyses
  FROM pg_stat_all_tables WHERE schemaname NOT IN ('pg_catalog', 'information_schema', 'pg_toast')`;

function withDatabase(url, database) {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

module.exports = { PathAccount };
