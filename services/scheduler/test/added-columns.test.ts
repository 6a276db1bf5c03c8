import { quoteIdent } from '@smsgw/platform';
import { eventually, randomHex, SchedulerWorld, type SchedulerReplica } from './support/service';

// During a rolling upgrade, the new version's migration adds columns while the old replicas still
// run. Their named statements are prepared on connections that stay open, and Postgres refuses a
// prepared statement whose result a new column would change ("cached plan must not change result
// type"): the statements that return timers name their columns.

describe('the scheduler while a migration adds a column to its timers', () => {
  let world: SchedulerWorld;
  let replica: SchedulerReplica;

  beforeAll(async () => {
    world = await SchedulerWorld.create();
    // One connection: every statement is prepared where the next call runs it.
    replica = await world.startReplica({ DATABASE_POOL_MAX: '1', SCHEDULER_MAX_SLEEP_MS: '60000' });
  });
  afterAll(async () => {
    await world?.stop();
  });

  /** Creates a timer due in 300 ms and returns how late it was stored on its subject. */
  async function fireOne(): Promise<number> {
    const subject = world.subject(`test.${randomHex(3)}`);
    const fireAt = new Date(Date.now() + 300);
    const timer = await replica.client.createTimer({
      key: `k-${randomHex()}`,
      fireAt: fireAt.toISOString(),
      subject,
      payload: Buffer.from('{}'),
    });
    expect(timer).toMatchObject({ state: 'pending', created: true });
    await eventually(async () => (await world.stored(subject)).length > 0, 10_000, 'the fire');
    return Date.now() - fireAt.getTime();
  }

  it('when a column is added to the timers between two timers, then the second is created and fires on time as the first did', async () => {
    expect(await fireOne()).toBeLessThan(1000);

    await world.pool.query(`ALTER TABLE ${quoteIdent(world.schema)}.timers ADD COLUMN added_by_next_version text`);

    expect(await fireOne()).toBeLessThan(1000);
  });
});
