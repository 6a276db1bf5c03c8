import type { Subscription } from '@nats-io/transport-node';
import { TimerRepository } from '../src/data/timer.repository';
import { fireMessageId } from '../src/domain/timers';
import { eventually, randomHex, SchedulerWorld, sleep, type SchedulerReplica } from './support/service';

/** Every publish seen on a subject over core NATS (repeats included), with when it arrived. */
function watch(world: SchedulerWorld, subject: string) {
  const seen: { key: string; msgId: string; at: number; data: string }[] = [];
  const sub: Subscription = world.nats.nc.subscribe(subject, {
    callback: (_err, msg) => {
      seen.push({
        key: msg.headers?.get('Smsgw-Timer-Key') ?? '',
        msgId: msg.headers?.get('Nats-Msg-Id') ?? '',
        at: Date.now(),
        data: msg.string(),
      });
    },
  });
  return { seen, stop: () => sub.unsubscribe() };
}

describe('durable timers', () => {
  let world: SchedulerWorld;
  let replica: SchedulerReplica;

  beforeAll(async () => {
    world = await SchedulerWorld.create();
    // A long safety-net sleep: timers must fire on time because the replica sleeps until them, not because it polls.
    replica = await world.startReplica({ SCHEDULER_MAX_SLEEP_MS: '60000' });
  });
  afterAll(async () => {
    await world?.stop();
  });

  it('when a timer is created, then its payload is published on its subject at its time, not before, with its key and fire time as Nats-Msg-Id', async () => {
    const subject = world.subject(`test.${randomHex(3)}`);
    const w = watch(world, subject);
    const fireAt = new Date(Date.now() + 1500);
    const key = `k-${randomHex()}`;
    const timer = await replica.client.createTimer({ key, fireAt: fireAt.toISOString(), subject, payload: Buffer.from('{"hello":1}') });
    expect(timer).toMatchObject({ key, subject, state: 'pending', created: true, fireAt: fireAt.toISOString() });
    await eventually(async () => w.seen.length > 0, 5000, 'the fire');
    w.stop();
    expect(w.seen).toHaveLength(1);
    expect(w.seen[0]!.at).toBeGreaterThanOrEqual(fireAt.getTime());
    expect(w.seen[0]!.at - fireAt.getTime()).toBeLessThan(1000);
    expect(w.seen[0]!.data).toBe('{"hello":1}');
    expect(w.seen[0]!.msgId).toBe(fireMessageId(key, fireAt));
    const stored = await world.stored(subject);
    expect(stored.map((s) => s.msgId)).toEqual([`${key}:${fireAt.toISOString()}`]);
    const [row] = (await world.pool.query('SELECT state, fired_at FROM timers WHERE key = $1', [key])).rows as {
      state: string;
      fired_at: Date;
    }[];
    expect(row!.state).toBe('fired');
  });

  it('when the same key is created twice, then the second call returns the first timer and it fires once', async () => {
    const subject = world.subject(`test.${randomHex(3)}`);
    const w = watch(world, subject);
    const key = `k-${randomHex()}`;
    const first = await replica.client.createTimer({
      key,
      fireAt: new Date(Date.now() + 500).toISOString(),
      subject,
      payload: Buffer.from('first'),
    });
    const second = await replica.client.createTimer({
      key,
      fireAt: new Date(Date.now() + 300).toISOString(),
      subject,
      payload: Buffer.from('second'),
    });
    expect(second).toMatchObject({ timerId: first.timerId, fireAt: first.fireAt, created: false });
    await eventually(async () => w.seen.length > 0, 5000, 'the fire');
    await sleep(700);
    w.stop();
    expect(w.seen.map((s) => s.data)).toEqual(['first']);
  });

  it('when a pending timer is cancelled, then it never fires, and cancelling it again, a fired one or an unknown one says so', async () => {
    const subject = world.subject(`test.${randomHex(3)}`);
    const w = watch(world, subject);
    const key = `k-${randomHex()}`;
    await replica.client.createTimer({ key, fireAt: new Date(Date.now() + 800).toISOString(), subject, payload: Buffer.from('x') });
    expect(await replica.client.cancelTimer({ key })).toEqual({ cancelled: true, state: 'cancelled' });
    expect(await replica.client.cancelTimer({ key })).toEqual({ cancelled: true, state: 'cancelled' });
    expect(await replica.client.cancelTimer({ key: `unknown-${randomHex()}` })).toEqual({ cancelled: false, state: 'not_found' });

    const firedKey = `k-${randomHex()}`;
    await replica.client.createTimer({ key: firedKey, fireAt: new Date().toISOString(), subject, payload: Buffer.from('y') });
    await eventually(async () => w.seen.some((s) => s.key === firedKey), 5000, 'the other timer to fire');
    await eventually(
      async () => (await replica.client.cancelTimer({ key: firedKey })).state === 'fired',
      2000,
      'the timer to be marked fired',
    );
    expect(await replica.client.cancelTimer({ key: firedKey })).toEqual({ cancelled: false, state: 'fired' });

    await sleep(1200);
    w.stop();
    expect(w.seen.map((s) => s.key)).toEqual([firedKey]);
  });

  it('when a timer is malformed, then it is refused with the fields at fault', async () => {
    await expect(
      replica.client.createTimer({ key: '', fireAt: 'tomorrow', subject: 'elsewhere.subject', payload: Buffer.alloc(0) }),
    ).rejects.toMatchObject({
      code: 'VALIDATION_ERROR',
      details: expect.arrayContaining([
        { field: 'key', code: 'VALIDATION_ERROR' },
        { field: 'fire_at', code: 'VALIDATION_ERROR' },
        { field: 'subject', code: 'VALIDATION_ERROR' },
      ]),
    });
  });

  it('when a replica claimed timers and died before publishing, or published and died before recording it, then after the lease another replica fires them and the stream holds each once', async () => {
    const subject = world.subject(`test.${randomHex(3)}`);
    const w = watch(world, subject);
    const dead = new TimerRepository(world.pool);
    const keys = [`never-published-${randomHex()}`, `published-${randomHex()}`];
    const fireAt = new Date(Date.now() - 10);
    // Rows as CreateTimer stores them, but claimed by a "replica" that then dies: no hint, so the live replica only finds them after the lease.
    await dead.ensure(keys.map((key) => ({ timerId: `tmr_${randomHex()}`, key, fireAt, subject, payload: Buffer.from(key) })));
    const claimed = await dead.claimDue(100, 1500);
    expect(claimed.map((t) => t.key).sort()).toEqual([...keys].sort());
    // The second one made it to JetStream before the crash.
    await world.nats.js.publish(subject, Buffer.from(keys[1]!), { msgID: fireMessageId(keys[1]!, fireAt) });
    // Wake the live replica now, so that it sleeps until the lease ends rather than its 60 s safety net.
    await replica.client.createTimer({
      key: `nudge-${randomHex()}`,
      fireAt: new Date().toISOString(),
      subject: world.subject('test.nudge'),
      payload: Buffer.alloc(0),
    });

    await eventually(async () => w.seen.filter((s) => s.key !== '').length >= 2, 6000, 'the re-fires');
    const stored = await world.stored(subject);
    expect(stored.map((s) => s.data).sort()).toEqual([...keys].sort());
    const { rows } = await world.pool.query<{ key: string; state: string; attempts: number }>(
      'SELECT key, state, attempts FROM timers WHERE key = ANY($1)',
      [keys],
    );
    expect(rows.map((r) => [r.state, r.attempts])).toEqual([
      ['fired', 2],
      ['fired', 2],
    ]);
    w.stop();
  });
});

describe('timers across replicas and restarts', () => {
  let world: SchedulerWorld;

  beforeAll(async () => {
    world = await SchedulerWorld.create();
  });
  afterAll(async () => {
    await world?.stop();
  });

  it('when a timer due soon is created on one replica, then another replica sleeping far longer wakes up for it', async () => {
    await world.startReplica({ SCHEDULER_MAX_SLEEP_MS: '120000' });
    const creator = await world.startReplica({ SCHEDULER_MAX_SLEEP_MS: '120000' });
    // Let both fall asleep on an empty table.
    await sleep(300);
    const subject = world.subject(`test.${randomHex(3)}`);
    const w = watch(world, subject);
    const fireAt = new Date(Date.now() + 1500);
    await creator.client.createTimer({ key: `k-${randomHex()}`, fireAt: fireAt.toISOString(), subject, payload: Buffer.from('woken') });
    // With the creating replica gone, only the sleeper can fire it: the hint published by CreateTimer must have woken it.
    await creator.stop();
    await eventually(async () => w.seen.length > 0, 5000, 'the fire');
    expect(w.seen[0]!.at).toBeGreaterThanOrEqual(fireAt.getTime());
    expect(w.seen[0]!.at - fireAt.getTime()).toBeLessThan(1000);
    w.stop();
  });

  it('when timers fell due while no replica ran, then a replica started later fires each of them once', async () => {
    const subject = world.subject(`test.${randomHex(3)}`);
    const w = watch(world, subject);
    const first = await world.startReplica();
    const keys = Array.from({ length: 20 }, (_, i) => `down-${i}-${randomHex(3)}`);
    for (const key of keys)
      await first.client.createTimer({ key, fireAt: new Date(Date.now() + 1000).toISOString(), subject, payload: Buffer.from(key) });
    for (const r of world.replicas) await r.stop();
    await sleep(1500);
    expect(w.seen).toHaveLength(0);
    await world.startReplica();
    await eventually(async () => w.seen.length >= keys.length, 5000, 'the overdue timers');
    await sleep(300);
    w.stop();
    expect(w.seen.map((s) => s.key).sort()).toEqual([...keys].sort());
  });
});
