import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { createPool, inTransaction, inTransactionWithGenericPlans, isPostgresUnavailable, migrate, quoteIdent, type Pool } from '../src';

const DATABASE_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const MIGRATIONS = path.resolve(__dirname, 'fixtures/migrations');
const BROKEN_MIGRATIONS = path.resolve(__dirname, 'fixtures/broken-migrations');

const newSchema = () => `t_${randomBytes(6).toString('hex')}`;

describe('Postgres helpers', () => {
  const schemas: string[] = [];
  const pools: Pool[] = [];
  let admin: Pool;

  function poolFor(schema: string): Pool {
    const pool = createPool({ url: DATABASE_URL, schema, max: 3 });
    pools.push(pool);
    return pool;
  }
  function freshSchema(): string {
    const schema = newSchema();
    schemas.push(schema);
    return schema;
  }

  beforeAll(() => {
    admin = createPool({ url: DATABASE_URL, schema: 'public', max: 2 });
  });

  afterAll(async () => {
    for (const schema of schemas) await admin.query(`DROP SCHEMA IF EXISTS ${quoteIdent(schema)} CASCADE`);
    await Promise.all(pools.map((p) => p.end()));
    await admin.end();
  });

  it('when migrate runs on a fresh schema, then it applies every numbered file in order and records each', async () => {
    const schema = freshSchema();
    const pool = poolFor(schema);

    await expect(migrate(pool, { schema, dir: MIGRATIONS })).resolves.toEqual(['001_create_notes.sql', '002_seed_notes.sql']);

    const versions = await pool.query<{ version: string }>('SELECT version FROM schema_migrations ORDER BY version');
    expect(versions.rows.map((r) => r.version)).toEqual(['001_create_notes.sql', '002_seed_notes.sql']);
    const notes = await pool.query<{ body: string }>('SELECT body FROM notes');
    expect(notes.rows).toEqual([{ body: 'first' }]);
  });

  it('when migrate runs again on an up-to-date schema, then it applies nothing', async () => {
    const schema = freshSchema();
    const pool = poolFor(schema);
    await migrate(pool, { schema, dir: MIGRATIONS });

    await expect(migrate(pool, { schema, dir: MIGRATIONS })).resolves.toEqual([]);
    const runs = await pool.query('SELECT file FROM migration_runs');
    expect(runs.rowCount).toBe(2);
  });

  it('when two replicas migrate the same fresh schema at once, then each file is applied exactly once', async () => {
    const schema = freshSchema();
    const first = poolFor(schema);
    const second = poolFor(schema);

    const results = await Promise.all([migrate(first, { schema, dir: MIGRATIONS }), migrate(second, { schema, dir: MIGRATIONS })]);

    expect(results.flat().sort()).toEqual(['001_create_notes.sql', '002_seed_notes.sql']);
    const versions = await first.query<{ version: string; n: number }>(
      'SELECT version, count(*)::int AS n FROM schema_migrations GROUP BY version ORDER BY version',
    );
    expect(versions.rows).toEqual([
      { version: '001_create_notes.sql', n: 1 },
      { version: '002_seed_notes.sql', n: 1 },
    ]);
    const runs = await first.query<{ file: string }>('SELECT file FROM migration_runs ORDER BY file');
    expect(runs.rows.map((r) => r.file)).toEqual(['001', '002']);
    expect((await first.query('SELECT * FROM notes')).rowCount).toBe(1);
  });

  it('when a migration fails, then the error names it, its changes are rolled back and it is not recorded', async () => {
    const schema = freshSchema();
    const pool = poolFor(schema);

    await expect(migrate(pool, { schema, dir: BROKEN_MIGRATIONS })).rejects.toThrow(`migration ${schema}/002_broken.sql failed`);

    const versions = await pool.query<{ version: string }>('SELECT version FROM schema_migrations');
    expect(versions.rows.map((r) => r.version)).toEqual(['001_create_items.sql']);
    const tables = await pool.query<{ table_name: string }>(
      'SELECT table_name FROM information_schema.tables WHERE table_schema = $1 ORDER BY table_name',
      [schema],
    );
    expect(tables.rows.map((r) => r.table_name)).toEqual(['items', 'schema_migrations']);
  });

  it('when a migration failed, then the lock is released and another migrator can run', async () => {
    const schema = freshSchema();
    await expect(migrate(poolFor(schema), { schema, dir: BROKEN_MIGRATIONS })).rejects.toThrow();

    const other = poolFor(schema);
    await expect(migrate(other, { schema, dir: BROKEN_MIGRATIONS })).rejects.toThrow(/002_broken\.sql/);
  });

  it('when a pool is made for a schema, then unqualified names resolve to that schema', async () => {
    const a = freshSchema();
    const b = freshSchema();
    const poolA = poolFor(a);
    const poolB = poolFor(b);
    await migrate(poolA, { schema: a, dir: MIGRATIONS });
    await migrate(poolB, { schema: b, dir: MIGRATIONS });

    await poolA.query("INSERT INTO notes (body) VALUES ('only in a')");

    expect((await poolA.query('SELECT * FROM notes')).rowCount).toBe(2);
    expect((await poolB.query('SELECT * FROM notes')).rowCount).toBe(1);
  });

  it('when the work inside a transaction throws, then none of it is kept', async () => {
    const schema = freshSchema();
    const pool = poolFor(schema);
    await migrate(pool, { schema, dir: MIGRATIONS });

    await expect(
      inTransaction(pool, async (db) => {
        await db.query("INSERT INTO notes (body) VALUES ('lost')");
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    await expect(inTransaction(pool, (db) => db.query("INSERT INTO notes (body) VALUES ('kept') RETURNING body"))).resolves.toMatchObject({
      rows: [{ body: 'kept' }],
    });

    const notes = await pool.query<{ body: string }>('SELECT body FROM notes ORDER BY id');
    expect(notes.rows.map((r) => r.body)).toEqual(['first', 'kept']);
    expect(pool.idleCount + pool.waitingCount).toBe(pool.totalCount);
  });

  it('when a transaction asks for generic plans, then its named statements use them from the first call, and later transactions plan as before', async () => {
    const pool = createPool({ url: DATABASE_URL, schema: 'public', max: 1 });
    pools.push(pool);
    const named = { name: 'ids-under', text: 'SELECT x FROM unnest($1::int[]) AS x WHERE x < $2', values: [[1, 2, 3], 3] };
    const plans = async () =>
      (
        await pool.query<{ generic: number; custom: number }>(
          "SELECT generic_plans::int AS generic, custom_plans::int AS custom FROM pg_prepared_statements WHERE name = 'ids-under'",
        )
      ).rows[0];

    for (let i = 0; i < 3; i++) await inTransactionWithGenericPlans(pool, (db) => db.query(named));
    expect(await plans()).toEqual({ generic: 3, custom: 0 });

    // Postgres's own choice comes back with the next transaction: custom plans for the first calls.
    await inTransaction(pool, (db) => db.query(named));
    expect(await plans()).toEqual({ generic: 3, custom: 1 });
    expect((await pool.query<{ plan_cache_mode: string }>('SHOW plan_cache_mode')).rows[0]!.plan_cache_mode).toBe('auto');
  });

  it('when Postgres closes an idle connection of the pool (a restart), then the process goes on and the next query gets a new connection', async () => {
    const pool = poolFor(freshSchema());
    const { rows } = await pool.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    expect(pool.idleCount).toBe(1);

    // The same error a restart gives every connection: "terminating connection due to administrator command".
    await admin.query('SELECT pg_terminate_backend($1)', [rows[0]!.pid]);
    for (let i = 0; i < 100 && pool.totalCount > 0; i++) await new Promise((r) => setTimeout(r, 20));

    expect(pool.totalCount).toBe(0);
    const after = await pool.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    expect(after.rows[0]!.pid).not.toBe(rows[0]!.pid);
  });

  it('when Postgres closes a connection checked out for a transaction, then the process goes on, the transaction fails and the next query works', async () => {
    const pool = poolFor(freshSchema());
    let pid = 0;
    const tx = inTransaction(pool, async (client) => {
      pid = (await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
      // Waiting on something else (a publish) while the connection is out of the pool.
      await new Promise((r) => setTimeout(r, 500));
      await client.query('SELECT 1');
    });
    while (pid === 0) await new Promise((r) => setTimeout(r, 10));

    await admin.query('SELECT pg_terminate_backend($1)', [pid]);

    await expect(tx).rejects.toThrow();
    const after = await pool.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    expect(after.rows[0]!.pid).not.toBe(pid);
  });

  it('when a query is cut off by a Postgres shutdown, then its error is one of unavailability (503); a wrong query is not', async () => {
    const pool = poolFor(freshSchema());
    const client = await pool.connect();
    const pid = (await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
    const cut = client.query('SELECT pg_sleep(5)').catch((err: unknown) => err);
    await new Promise((r) => setTimeout(r, 100));
    await admin.query('SELECT pg_terminate_backend($1)', [pid]);
    const err = await cut;
    client.release(true);

    expect(isPostgresUnavailable(err)).toBe(true);
    expect(isPostgresUnavailable(await pool.query('SELEC 1').catch((e: unknown) => e))).toBe(false);
    expect(isPostgresUnavailable(Object.assign(new Error('the database system is starting up'), { code: '57P03' }))).toBe(true);
  });

  it('when an identifier holds a double quote, then quoteIdent escapes it', () => {
    expect(quoteIdent('a"b')).toBe('"a""b"');
  });
});
