import fs from 'node:fs/promises';
import path from 'node:path';
import pg from 'pg';
import type { Logger } from './logger';

// Timestamps come back as Date; numeric counts as numbers.
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number(v));

export type Pool = pg.Pool;
export type PoolClient = pg.PoolClient;

export function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/**
 * A pool whose connections all use the service's own schema. A connection that Postgres closes
 * (a restart, a failover, an administrator) emits 'error', on the pool when it is idle and on the
 * connection itself while it is checked out (in a transaction, waiting for something else);
 * with no listener that event would end the process. The pool drops such a connection (when it
 * is released, for a checked-out one, whose next query fails) and opens a new one when asked.
 */
export function createPool(options: {
  url: string;
  schema: string;
  max?: number;
  applicationName?: string;
  log?: Logger;
  /** Postgres settings of every connection (`enable_seqscan: 'off'`), after the search path. */
  settings?: Readonly<Record<string, string>>;
}): pg.Pool {
  const pool = new pg.Pool({
    connectionString: options.url,
    max: options.max ?? 10,
    application_name: options.applicationName,
    options: connectionOptions({ search_path: `${quoteIdent(options.schema)},public`, ...options.settings }),
  });
  pool.on('connect', (client) =>
    client.on('error', (err) =>
      options.log?.warn({ err: { message: err.message } }, 'a Postgres connection was closed; the pool opens another'),
    ),
  );
  // An idle connection's error reaches the pool too: the connection's own listener has logged it.
  pool.on('error', () => undefined);
  return pool;
}

/** Settings as a connection's `options` (`-c name=value` each): what a session starts with. */
export function connectionOptions(settings: Readonly<Record<string, string>>): string {
  return Object.entries(settings)
    .map(([name, value]) => `-c ${name}=${value}`)
    .join(' ');
}

/**
 * Applies the numbered SQL files of `dir` that have not run yet, each in its
 * own transaction, under an advisory lock so that replicas starting together
 * take turns.
 */
export async function migrate(pool: pg.Pool, options: { schema: string; dir: string; log?: Logger }): Promise<string[]> {
  const schema = quoteIdent(options.schema);
  const files = (await fs.readdir(options.dir)).filter((f) => /^\d+.*\.sql$/.test(f)).sort();
  const client = await pool.connect();
  const applied: string[] = [];
  try {
    await client.query('SELECT pg_advisory_lock(hashtext($1))', [`smsgw:migrate:${options.schema}`]);
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
    await client.query(
      `CREATE TABLE IF NOT EXISTS ${schema}.schema_migrations (version text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`,
    );
    const done = new Set(
      (await client.query<{ version: string }>(`SELECT version FROM ${schema}.schema_migrations`)).rows.map((r) => r.version),
    );
    for (const file of files) {
      if (done.has(file)) continue;
      const sql = await fs.readFile(path.join(options.dir, file), 'utf8');
      await client.query('BEGIN');
      try {
        await client.query(`SET LOCAL search_path TO ${schema}, public`);
        await client.query(sql);
        await client.query(`INSERT INTO ${schema}.schema_migrations (version) VALUES ($1)`, [file]);
        await client.query('COMMIT');
      } catch (err) {
        await client.query('ROLLBACK');
        throw new Error(`migration ${options.schema}/${file} failed: ${(err as Error).message}`, { cause: err });
      }
      applied.push(file);
      options.log?.info({ schema: options.schema, migration: file }, 'migration applied');
    }
  } finally {
    await client.query('SELECT pg_advisory_unlock(hashtext($1))', [`smsgw:migrate:${options.schema}`]).catch(() => undefined);
    client.release();
  }
  return applied;
}

/** Runs `fn` in a transaction on one pooled connection, opened by `begin`. */
export async function inTransaction<T>(pool: pg.Pool, fn: (client: pg.PoolClient) => Promise<T>, begin = 'BEGIN'): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query(begin);
    const result = await fn(client);
    await client.query('COMMIT');
    return result;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}

/**
 * `inTransaction` whose named statements use their generic plan from their first call, never a
 * custom plan (`SET LOCAL plan_cache_mode`, sent with the BEGIN: no round trip more). For
 * statements over arrays whose lengths vary from call to call: the plan cache weighs each custom
 * plan, made with the lengths seen, against the generic one, and may go on planning again at many
 * calls when the custom plans cost as much to make as the statement to run.
 */
export function inTransactionWithGenericPlans<T>(pool: pg.Pool, fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  return inTransaction(pool, fn, 'BEGIN; SET LOCAL plan_cache_mode = force_generic_plan');
}

/**
 * Whether a Postgres error says the database cannot be reached now rather than that the query is
 * wrong: a restart or failover under way (SQLSTATE class 57P: shutting down, starting up), a lost
 * connection (class 08, or the socket closed mid-query). Such a call is answered UNAVAILABLE (503),
 * which clients retry, never INTERNAL.
 */
export function isPostgresUnavailable(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string' && /^(57P0[1-3]|08\d{3}|53300)$/.test(code)) return true;
  return /^(Connection terminated|Client has encountered a connection error|timeout exceeded when trying to connect)/.test(err.message);
}
