'use strict';
/**
 * `node bench/history/run.js`: how fast a filtered history page is at a million messages.
 *
 *   1. creates a scratch schema and applies services/message/migrations (platform `migrate`);
 *   2. bulk-loads BENCH_ROWS messages (1,000,000) in SQL: five clients of unequal size, 5 % test
 *      mode, four phones each, 20,000 recipients each, five kinds of French texts, spread over the
 *      last 90 days, statuses as they end up (queued and sent only in the last day);
 *      the secondary indexes are dropped for the load and rebuilt from their own definitions;
 *   3. VACUUM ANALYZE (what autovacuum leaves on a table at rest);
 *   4. starts the real service (`node services/message/dist/main.js`) on that schema and, for
 *      each query shape, calls ListMessages (or GetStats) BENCH_WARMUP times, then BENCH_RUNS
 *      times measured, one call at a time, and prints p50 / p95 / max in milliseconds;
 *   5. compares, in plain SQL, three ways to get the exact total: `count(*) OVER ()` in the page
 *      query, a separate count(*) over the index, and the per-day counters (message_counts);
 *   6. stops the service, deletes its NATS streams and drops the schema.
 *
 * Needs Postgres and NATS as for the tests (DATABASE_URL, NATS_URL), and a build
 * (`npx turbo run build --filter=@smsgw/message`). Knobs: BENCH_ROWS, BENCH_RUNS (50),
 * BENCH_WARMUP (5), BENCH_KEEP=1 (keep the schema and print its name).
 */
const { spawn } = require('node:child_process');
const os = require('node:os');
const path = require('node:path');
const readline = require('node:readline');
const { randomBytes } = require('node:crypto');
const { connectNats, createClient, createLogger, createPool, migrate, quoteIdent } = require('@smsgw/platform');
const { messageProto } = require('@smsgw/proto');
const { grpcTlsEnv, grpcTlsFor } = require('@smsgw/testing');
const { intEnv } = require('../lib/knobs');
const { percentile } = require('../lib/stats');

const REPO_ROOT = path.resolve(__dirname, '../..');
const MIGRATIONS = path.join(REPO_ROOT, 'services/message/migrations');
const SERVICE_MAIN = path.join(REPO_ROOT, 'services/message/dist/main.js');
const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const NATS_URL = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';
const ROWS = intEnv('BENCH_ROWS', 1_000_000, 2_000);
const RUNS = intEnv('BENCH_RUNS', 50, 2);
const WARMUP = intEnv('BENCH_WARMUP', 5, 1);
const LOAD_CHUNK = 250_000;
const GOAL_MS = 50;

/** Client shares of the rows: one large client, one medium, three small. */
const CLIENTS = [
  { id: 'client_9000000000001', share: 0.4 },
  { id: 'client_9000000000002', share: 0.25 },
  { id: 'client_9000000000003', share: 0.15 },
  { id: 'client_9000000000004', share: 0.1 },
  { id: 'client_9000000000005', share: 0.1 },
];

const log = (...args) => console.error(`[${new Date().toISOString().slice(11, 19)}]`, ...args);

async function timed(what, fn) {
  const started = performance.now();
  const result = await fn();
  log(`${what}: ${((performance.now() - started) / 1000).toFixed(1)} s`);
  return result;
}

/** Bulk load in SQL: every random draw happens in Postgres, no row crosses the wire. */
async function load(pool) {
  const conn = await pool.connect();
  try {
    await loadOn(conn);
  } finally {
    conn.release();
  }
}

async function loadOn(pool) {
  let bounds = 0;
  const clientCase = CLIENTS.map((c, i) => {
    bounds += c.share;
    return i === CLIENTS.length - 1 ? `ELSE ${i + 1}` : `WHEN r_client < ${bounds.toFixed(4)} THEN ${i + 1}`;
  }).join(' ');
  const secondary = (
    await pool.query(
      `SELECT indexname, indexdef FROM pg_indexes
       WHERE schemaname = current_schema() AND tablename IN ('messages', 'message_texts') AND indexname NOT LIKE '%_pkey'`,
    )
  ).rows;
  for (const { indexname } of secondary) await pool.query(`DROP INDEX ${quoteIdent(indexname)}`);
  await pool.query('SELECT setseed(0.4242)');
  for (let first = 1; first <= ROWS; first += LOAD_CHUNK) {
    const last = Math.min(ROWS, first + LOAD_CHUNK - 1);
    await timed(`load rows ${first}..${last}`, () =>
      pool.query(
        `INSERT INTO messages (message_id, client_id, mode, device_id, status, to_number, body, priority, parts, encoding,
                               created_at, queued_at, due_at, accepted_at, sent_at, delivered_at, failed_at, cancelled_at,
                               error_code)
         SELECT message_id, 'client_900000000000' || client, mode, 'device_bench' || client || 'p' || phone, status,
                '+336' || lpad((client * 100000 + recipient)::text, 8, '0'), body, priority, 1, 'GSM-7',
                created, created, created,
                CASE WHEN status IN ('sent', 'delivered', 'failed') THEN created + interval '2 seconds' END,
                CASE WHEN status IN ('sent', 'delivered') THEN created + interval '3 seconds' END,
                CASE WHEN status = 'delivered' THEN created + interval '9 seconds' END,
                CASE WHEN status = 'failed' THEN created + interval '5 seconds' END,
                CASE WHEN status = 'cancelled' THEN created + interval '1 second' END,
                CASE WHEN status = 'failed' THEN 'OUT_OF_NETWORK' END
         FROM (
           SELECT *,
                  CASE WHEN created > now() - interval '2 hours' AND r_status < 0.3 THEN 'queued'
                       WHEN created > now() - interval '1 day' AND r_status < 0.1 THEN 'sent'
                       WHEN r_status < 0.86 THEN 'delivered'
                       WHEN r_status < 0.95 THEN 'failed'
                       ELSE 'cancelled' END AS status,
                  CASE kind
                    WHEN 0 THEN 'Votre code de vérification est : ' || lpad((num % 1000000)::text, 6, '0')
                    WHEN 1 THEN 'Votre commande CMD-' || num || ' a été expédiée et arrivera sous 48 h.'
                    WHEN 2 THEN 'Rappel : votre rendez-vous du ' || to_char(created + interval '3 days', 'DD/MM') || ' à '
                                || (8 + num % 10) || 'h est confirmé. Répondez STOP pour annuler.'
                    WHEN 3 THEN 'Bonjour ' || (ARRAY['Alice', 'Bruno', 'Chloé', 'David', 'Emma', 'Farid', 'Gaëlle', 'Hugo'])[1 + num % 8]
                                || ', votre colis est disponible en point relais jusqu''à samedi.'
                    ELSE 'Promo : -' || (10 + num % 40) || '% sur tout le site ce week-end avec le code ETE' || (num % 100) || '.'
                  END AS body
           FROM (
             SELECT 'msg_bench' || lpad(g::text, 17, '0') AS message_id,
                    CASE ${clientCase} END AS client,
                    CASE WHEN random() < 0.05 THEN 'test' ELSE 'live' END AS mode,
                    floor(random() * 4)::int AS phone,
                    floor(random() * 20000)::int AS recipient,
                    floor(random() * 5)::int AS kind,
                    floor(random() * 1000000)::int AS num,
                    CASE WHEN random() < 0.1 THEN 1 ELSE 3 END AS priority,
                    random() AS r_status,
                    -- The history is never in insertion order on disk.
                    now() - random() * interval '90 days' AS created
             FROM (SELECT g, random() AS r_client FROM generate_series($1::int, $2::int) AS g) AS draws
           ) AS drawn
         ) AS rows`,
        [first, last],
      ),
    );
  }
  await timed('message_texts', () =>
    pool.query('INSERT INTO message_texts (message_id, client_id, mode, body) SELECT message_id, client_id, mode, body FROM messages'),
  );
  await pool.query(`SET maintenance_work_mem = '512MB'`);
  for (const { indexname, indexdef } of secondary) await timed(`index ${indexname}`, () => pool.query(indexdef));
  await timed('VACUUM ANALYZE', () => pool.query('VACUUM ANALYZE messages, message_texts'));
}

function startService(schema, prefix) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [SERVICE_MAIN], {
      cwd: REPO_ROOT,
      env: {
        ...process.env,
        DATABASE_URL,
        DATABASE_SCHEMA: schema,
        GRPC_HOST: '127.0.0.1',
        GRPC_PORT: '0',
        ...grpcTlsEnv('message'),
        NATS_URL,
        NATS_PREFIX: prefix,
        OTP_SEAL_KEY: randomBytes(32).toString('hex'),
        OTP_EXPIRY_SWEEP_MS: '0',
        LOG_LEVEL: 'info',
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const lines = readline.createInterface({ input: child.stdout });
    lines.on('line', (line) => {
      let entry;
      try {
        entry = JSON.parse(line);
      } catch {
        return;
      }
      if (entry.msg === 'message service ready') resolve({ child, port: entry.port });
      else if (entry.level === 'error' || entry.level === 'fatal') log('service:', line);
    });
    child.on('exit', (code) => reject(new Error(`message service exited with ${code} before it was ready`)));
  });
}

function stopService(child) {
  return new Promise((resolve) => {
    if (child.exitCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

async function measure(call) {
  for (let i = 0; i < WARMUP; i++) await call();
  const samples = [];
  let last;
  for (let i = 0; i < RUNS; i++) {
    const started = performance.now();
    last = await call();
    samples.push(performance.now() - started);
  }
  samples.sort((a, b) => a - b);
  return { p50: percentile(samples, 50), p95: percentile(samples, 95), max: samples.at(-1), last };
}

const ms = (v) => v.toFixed(1).padStart(7);

async function main() {
  const schema = `bench_history_${randomBytes(4).toString('hex')}`;
  const prefix = `benchh${randomBytes(3).toString('hex')}`;
  const pool = createPool({ url: DATABASE_URL, schema, max: 2 });
  let service;
  let client;
  try {
    log(`schema ${schema}, ${ROWS.toLocaleString('en')} messages, ${os.cpus().length} CPUs`);
    await migrate(pool, { schema, dir: MIGRATIONS });
    const trigram =
      (await pool.query(`SELECT 1 FROM pg_indexes WHERE schemaname = $1 AND indexname = 'message_texts_search'`, [schema])).rowCount > 0;
    if (!trigram) log('pg_trgm unavailable: search runs without its index');
    await load(pool);

    const big = CLIENTS[0].id;
    const small = CLIENTS.at(-1).id;
    const sample = (
      await pool.query(
        `SELECT to_number, device_id, substring(body from 'CMD-[0-9]+') AS order_ref
         FROM messages WHERE client_id = $1 AND mode = 'live' AND body LIKE 'Votre commande%'
         ORDER BY created_at DESC LIMIT 1`,
        [big],
      )
    ).rows[0];
    const sizes = (await pool.query(`SELECT client_id, mode, count(*)::int AS n FROM messages GROUP BY 1, 2 ORDER BY 1, 2`)).rows;
    log('rows per client and mode:', sizes.map((r) => `${r.client_id.slice(-1)}/${r.mode}=${r.n}`).join(' '));

    service = await timed('start the message service', () => startService(schema, prefix));
    // History and statistics are read as the gateway reads them.
    client = createClient(messageProto().MessageService, `127.0.0.1:${service.port}`, { deadlineMs: 60_000, tls: grpcTlsFor('gateway') });

    const day = 86_400_000;
    const since = (days) => new Date(Date.now() - days * day).toISOString();
    const list = (req) => () => client.listMessages({ clientId: big, mode: 'MODE_LIVE', page: 1, limit: 50, ...req });
    const shapes = [
      ['no filter, page 1', list({})],
      ['no filter, page 20', list({ page: 20 })],
      ['no filter, limit 100, page 200', list({ page: 200, limit: 100 })],
      ['status=failed', list({ status: 'failed' })],
      ['status=delivered, page 5', list({ status: 'delivered', page: 5 })],
      ['status=queued (few)', list({ status: 'queued' })],
      ['to=<one recipient>', list({ to: sample.to_number })],
      ['device_id', list({ deviceId: sample.device_id })],
      ['from_date=7 days ago', list({ fromDate: since(7) })],
      ['from_date..to_date (one day, 30 d ago)', list({ fromDate: since(31), toDate: since(30) })],
      ['status+device+from_date 30 d', list({ status: 'delivered', deviceId: sample.device_id, fromDate: since(30) })],
      ['to+status', list({ to: sample.to_number, status: 'delivered' })],
      [`search rare ("${sample.order_ref}")`, list({ search: sample.order_ref })],
      [`search rare number ("${sample.order_ref.slice(4)}")`, list({ search: sample.order_ref.slice(4) })],
      ['search mid ("Farid", 1 in 40)', list({ search: 'Farid' })],
      ['search common ("colis")', list({ search: 'colis' })],
      ['search common ("code", 2 in 5)', list({ search: 'code' })],
      ['search common ("CODE"), page 5', list({ search: 'CODE', page: 5 })],
      ['search common + from_date 7 d', list({ search: 'colis', fromDate: since(7) })],
      ['search 2 letters ("zz", no match)', list({ search: 'zz' })],
      ['search 2 letters ("48", 1 in 5)', list({ search: '48' })],
      ['search 1 letter ("z", 1 in 5)', list({ search: 'z' })],
      ['search + status + device', list({ search: 'rendez-vous', status: 'failed', deviceId: sample.device_id })],
      ['small client, no filter', () => client.listMessages({ clientId: small, mode: 'MODE_LIVE', page: 1, limit: 50 })],
      ['test mode of large client', list({ mode: 'MODE_TEST' })],
    ];
    const stats = [
      ['GetStats, default 30 days', () => client.getStats({ clientId: big, mode: 'MODE_LIVE' })],
      ['GetStats, 90 days', () => client.getStats({ clientId: big, mode: 'MODE_LIVE', fromDate: since(90) })],
      [
        'GetStats, 90 days, one device',
        () => client.getStats({ clientId: big, mode: 'MODE_LIVE', fromDate: since(90), deviceId: sample.device_id }),
      ],
    ];

    const results = [];
    for (const [name, call] of [...shapes, ...stats]) {
      // A shape the service refuses (a search under 3 characters) is timed as answered: the refusal.
      const r = await measure(() => call().catch((err) => ({ refused: err.code ?? String(err) })));
      const items = r.last.refused ?? r.last.totalItems ?? r.last.totalSent;
      results.push({ name, ...r, items, history: !name.startsWith('GetStats') });
    }

    console.log(
      `\nListMessages / GetStats through gRPC, ${ROWS.toLocaleString('en')} messages, ${RUNS} runs after ${WARMUP} warm-up calls (ms)\n`,
    );
    console.log(`| ${'query shape'.padEnd(42)} | total_items |     p50 |     p95 |     max |`);
    console.log(`|${'-'.repeat(44)}|-------------|---------|---------|---------|`);
    for (const r of results) {
      console.log(`| ${r.name.padEnd(42)} | ${String(r.items).padStart(11)} | ${ms(r.p50)} | ${ms(r.p95)} | ${ms(r.max)} |`);
    }
    const slow = results.filter((r) => r.history && r.p95 > GOAL_MS);
    console.log(
      slow.length === 0
        ? `\nEvery history shape has p95 under ${GOAL_MS} ms.`
        : `\nHistory shapes with p95 over ${GOAL_MS} ms: ${slow.map((r) => r.name).join('; ')}.`,
    );

    // How to count: a window count in the page query, a separate count over the index, or the
    // per-day counters that the service keeps (what it does).
    const where = `client_id = $1 AND mode = 'live'`;
    const sql = {
      window: `SELECT *, count(*) OVER () AS total FROM messages WHERE ${where} ORDER BY created_at DESC, message_id DESC LIMIT 50`,
      page: `SELECT * FROM messages WHERE ${where} ORDER BY created_at DESC, message_id DESC LIMIT 50`,
      count: `SELECT count(*) FROM messages WHERE ${where}`,
      counters: `SELECT coalesce(sum(n), 0) FROM message_counts WHERE ${where}`,
    };
    const q =
      (text, extra = []) =>
      () =>
        pool.query(text, [big, ...extra]);
    const withStatus = (text) => text.replace(where, `${where} AND status = $2`);
    const both = (a, b) => async () => {
      await a();
      await b();
    };
    const comparisons = [
      ['no filter: page with count(*) OVER ()', q(sql.window)],
      ['no filter: page, then count(*) on the index', both(q(sql.page), q(sql.count))],
      ['no filter: page, then sum of message_counts', both(q(sql.page), q(sql.counters))],
      ['status=delivered: page with count(*) OVER ()', q(withStatus(sql.window), ['delivered'])],
      [
        'status=delivered: page, then count(*) on the index',
        both(q(withStatus(sql.page), ['delivered']), q(withStatus(sql.count), ['delivered'])),
      ],
      [
        'status=delivered: page, then sum of message_counts',
        both(q(withStatus(sql.page), ['delivered']), q(withStatus(sql.counters), ['delivered'])),
      ],
    ];
    console.log(`\nCounting strategies in plain SQL, large client (ms)\n`);
    console.log(`| ${'strategy'.padEnd(52)} |     p50 |     p95 |     max |`);
    console.log(`|${'-'.repeat(54)}|---------|---------|---------|`);
    for (const [name, call] of comparisons) {
      const r = await measure(call);
      console.log(`| ${name.padEnd(52)} | ${ms(r.p50)} | ${ms(r.p95)} | ${ms(r.max)} |`);
    }
  } finally {
    client?.close();
    if (service) await stopService(service.child);
    const nats = await connectNats({ url: NATS_URL, prefix, name: 'bench-history-cleanup', log: createLogger('bench', 'silent') }).catch(
      () => undefined,
    );
    if (nats) {
      // Every stream the service made (each reserves its byte budget on the server), not a list that falls behind.
      for await (const name of nats.jsm.streams.names())
        if (name.startsWith(`${prefix.toUpperCase()}_`)) await nats.jsm.streams.delete(name).catch(() => undefined);
      await nats.nc.drain();
    }
    if (process.env.BENCH_KEEP === '1') log(`schema ${schema} kept`);
    else await pool.query(`DROP SCHEMA IF EXISTS ${quoteIdent(schema)} CASCADE`);
    await pool.end();
  }
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
