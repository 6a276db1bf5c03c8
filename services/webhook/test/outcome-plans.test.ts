import path from 'node:path';
import { createPool, migrate, newId, quoteIdent, type Pool } from '@smsgw/platform';
import { DATABASE_URL, explainedPool, randomHex, scansOf, type PlanNode } from '@smsgw/testing';
import { CONNECTION_SETTINGS, DeliveryRepository, type AttemptOutcome } from '../src/data/delivery.repository';

// The outcomes statement is prepared: it keeps the plan it made first. Made while `deliveries` was
// small, a plan that read the table from end to end got slower with every delivery stored.

describe('the plan of the outcomes statement', () => {
  const schema = `t_${randomHex()}`;
  let pool: Pool;

  beforeAll(async () => {
    pool = createPool({ url: DATABASE_URL, schema, max: 2 });
    await migrate(pool, { schema, dir: path.resolve(__dirname, '../migrations') });
    await pool.query('ALTER TABLE deliveries SET (autovacuum_enabled = false)');
  });

  afterAll(async () => {
    await pool.query(`DROP SCHEMA IF EXISTS ${quoteIdent(schema)} CASCADE`);
    await pool.end();
  });

  /** Deliveries waiting for their first attempt, stored as `recordEvents` stores them. */
  const seed = async (count: number): Promise<string[]> => {
    const ids = Array.from({ length: count }, () => newId('dlv'));
    await pool.query(
      `INSERT INTO events (event_id, client_id, mode, kind, data) SELECT 'evt_' || id, 'client_1', 'live', 'sms.sent', '{}' FROM unnest($1::text[]) id`,
      [ids],
    );
    await pool.query(
      `INSERT INTO deliveries (delivery_id, event_id, client_id, url, destination, next_attempt_at)
       SELECT id, 'evt_' || id, 'client_1', 'https://h.example/', 'url:https://h.example/', now() FROM unnest($1::text[]) id`,
      [ids],
    );
    return ids;
  };
  const succeeded = (deliveryId: string): AttemptOutcome => ({
    deliveryId,
    attempt: 1,
    state: 'succeeded',
    nextAttemptAt: null,
    httpStatus: 200,
    error: null,
    attemptedAt: new Date(),
    batchId: null,
    latencyMs: 12,
  });

  const outcomePlan = (plans: { text: string; plan: PlanNode }[]) =>
    scansOf(plans.find((p) => p.text.includes('UPDATE deliveries d SET attempts'))!.plan, 'deliveries');

  /**
   * The scans of `deliveries` by the outcomes statement's generic plan made while the table held one
   * row, and by its plan once 20,000 more are stored with no ANALYZE between. Postgres keeps the
   * first plan until something invalidates it (an ANALYZE, or a reset of its invalidation queue when
   * other sessions change many catalogs), so the later plan is either that one or one made afresh.
   */
  const scansWhenMadeSmall = async (settings: Readonly<Record<string, string>>) => {
    const { pool: explained, plans } = explainedPool(schema, { settings });
    try {
      const repo = new DeliveryRepository(explained, 300);
      const [early] = await seed(1);
      await repo.recordOutcomes([succeeded(early!)]);
      const small = outcomePlan(plans);
      const later = await seed(20_000);
      plans.length = 0;
      await repo.recordOutcomes(later.slice(0, 3).map(succeeded));
      const { rows } = await pool.query<{ state: string }>('SELECT state FROM deliveries WHERE delivery_id = ANY($1)', [later.slice(0, 3)]);
      expect(rows.map((r) => r.state)).toEqual(['succeeded', 'succeeded', 'succeeded']);
      return { small, later: outcomePlan(plans) };
    } finally {
      await pool.query('TRUNCATE deliveries, events, attempts');
      await explained.end();
    }
  };

  it("when it was planned while the table was small, then with the service's settings it reads deliveries by key, then and later", async () => {
    const { small, later } = await scansWhenMadeSmall(CONNECTION_SETTINGS);

    for (const scans of [small, later]) {
      expect(scans.length).toBeGreaterThan(0);
      expect(scans.every((s) => s === 'deliveries_pkey')).toBe(true);
    }
  });

  it('when it was planned while the table was small without those settings, then that plan reads the whole table (what they prevent)', async () => {
    expect((await scansWhenMadeSmall({})).small).toContain('seq');
  });
});
