import type { Subscription } from '@nats-io/transport-node';
import { eventually, randomHex, SchedulerWorld, sleep } from './support/service';

describe('periodic jobs', () => {
  let world: SchedulerWorld;

  beforeAll(async () => {
    world = await SchedulerWorld.create();
  });
  afterAll(async () => {
    await world?.stop();
  });

  it('when two replicas run jobs of one second, then each period fires once across both, the clean-up runs, and ListJobs shows the last run', async () => {
    const subject = world.subject('message.jobs.retention');
    const seen: { key: string; period: string }[] = [];
    const sub: Subscription = world.nats.nc.subscribe(subject, {
      callback: (_err, msg) => {
        seen.push({ key: msg.headers?.get('Smsgw-Timer-Key') ?? '', period: msg.json<{ period_start: string }>().period_start });
      },
    });
    // A timer fired long ago, which the scheduler's own clean-up job must delete.
    await world.startReplica({ PERIODIC_JOBS: 'false' }).then((r) => r.stop());
    await world.pool.query(
      `INSERT INTO timers (timer_id, key, fire_at, subject, payload, run_at, state, fired_at)
       VALUES ($1, $2, now() - interval '30 days', $3, '', now() - interval '30 days', 'fired', now() - interval '30 days')`,
      [`tmr_${randomHex()}`, `old-${randomHex()}`, world.subject('test.old')],
    );
    const env = { PERIODIC_JOBS: 'true', PERIODIC_JOB_PERIODS_MS: 'message.retention=1000,scheduler.cleanup=1000' };
    const a = await world.startReplica(env);
    await world.startReplica(env);
    await sleep(3600);
    sub.unsubscribe();

    // The first fire is the period under way at start-up, then one per second.
    expect(seen.length).toBeGreaterThanOrEqual(3);
    expect(new Set(seen.map((s) => s.key)).size).toBe(seen.length);
    const starts = seen.map((s) => Date.parse(s.period)).sort((x, y) => x - y);
    starts.slice(1).forEach((t, i) => expect(t - starts[i]!).toBe(1000));
    // The replicas keep firing after the subscription ends: compare up to the last period seen.
    const periodOf = (data: string) => Date.parse(JSON.parse(data).period_start);
    const stored = (await world.stored(subject)).filter((s) => periodOf(s.data) <= starts.at(-1)!);
    expect(stored.map((s) => s.key).sort()).toEqual(seen.map((s) => s.key).sort());

    await eventually(
      async () => (await world.pool.query(`SELECT 1 FROM timers WHERE key LIKE 'old-%'`)).rowCount === 0,
      5000,
      'the clean-up',
    );
    const { jobs } = await a.client.listJobs({});
    const retention = jobs.find((j) => j.name === 'message.retention')!;
    expect(retention).toMatchObject({ periodMs: '1000', subject });
    expect(Date.now() - Date.parse(retention.lastFiredAt)).toBeLessThan(2000);
    expect(Date.parse(retention.nextFireAt)).toBeGreaterThan(Date.parse(retention.lastFiredAt) - 1000);
  });
});
