import path from 'node:path';
import { createLogger, createPool, migrate, newId, quoteIdent, type Pool } from '@smsgw/platform';
import { startMailCatcher } from '@smsgw/stack';
import nodemailer from 'nodemailer';
import { DATABASE_URL, randomHex, sleep } from '@smsgw/testing';
import { AlertRepository } from '../src/data/alert.repository';
import { DeliveryLogRepository } from '../src/data/delivery-log.repository';
import { DeliveryRepository, type NewEvent } from '../src/data/delivery.repository';
import { EndpointRepository } from '../src/data/endpoint.repository';
import { AlertMailer } from '../src/delivery/alerts';

describe('delivery repository against Postgres', () => {
  const schema = `t_${randomHex()}`;
  let pool: Pool;
  let repo: DeliveryRepository;
  let alerts: AlertRepository;
  let deliveryLog: DeliveryLogRepository;
  let endpoints: EndpointRepository;

  beforeAll(async () => {
    pool = createPool({ url: DATABASE_URL, schema, max: 4 });
    await migrate(pool, { schema, dir: path.resolve(__dirname, '../migrations') });
    repo = new DeliveryRepository(pool, 300);
    alerts = new AlertRepository(pool);
    deliveryLog = new DeliveryLogRepository(pool);
    endpoints = new EndpointRepository(pool);
  });

  afterAll(async () => {
    await pool.query(`DROP SCHEMA IF EXISTS ${quoteIdent(schema)} CASCADE`);
    await pool.end();
  });

  const newEvent = (destinations = 1): NewEvent => ({
    eventId: newId('evt'),
    clientId: 'client_1',
    mode: 'live',
    kind: 'sms.sent',
    data: '{"message_id":"msg_1"}',
    traceparent: null,
    destinations: Array.from({ length: destinations }, (_, i) => ({
      deliveryId: newId('dlv'),
      key: `url:https://h${i}.example/`,
      url: `https://h${i}.example/`,
      endpointId: null,
      secret: null,
      batch: false,
    })),
  });

  it('when the same events are recorded again (JetStream redelivered them), then no delivery is doubled and a held one is not handed out twice', async () => {
    const events = [newEvent(2), newEvent(1)];
    const first = await repo.recordEvents(events);
    expect(first.map((j) => j.attempt)).toEqual([1, 1, 1]);
    const again = await repo.recordEvents(
      events.map((e) => ({ ...e, destinations: e.destinations.map((d) => ({ ...d, deliveryId: newId('dlv') })) })),
    );
    expect(again).toEqual([]);
    const { rows } = await pool.query('SELECT count(*)::int AS n FROM deliveries WHERE event_id = ANY($1)', [events.map((e) => e.eventId)]);
    expect(rows[0].n).toBe(3);
    // Once the lease has run out with no attempt made, a redelivery hands them out again.
    await sleep(400);
    const taken = await repo.recordEvents(events);
    expect(taken.map((j) => j.deliveryId).sort()).toEqual(first.map((j) => j.deliveryId).sort());
  });

  it('when an attempt fails and its retry is claimed, then only one claimer gets it and only for the right attempt number', async () => {
    const [job] = await repo.recordEvents([newEvent()]);
    await repo.recordOutcomes([
      {
        deliveryId: job!.deliveryId,
        attempt: 1,
        attemptedAt: new Date(),
        httpStatus: 500,
        latencyMs: 12,
        error: 'HTTP 500',
        state: 'pending',
        nextAttemptAt: new Date(),
        batchId: null,
      },
    ]);
    expect(await repo.claim(job!.deliveryId, 3)).toBeUndefined();
    const claims = await Promise.all([repo.claim(job!.deliveryId, 2), repo.claim(job!.deliveryId, 2)]);
    expect(claims.filter(Boolean)).toHaveLength(1);
    expect(claims.find(Boolean)).toMatchObject({ attempt: 2, data: '{"message_id":"msg_1"}' });
    // A stale outcome of attempt 1 (made twice after a lost lease) does not move the state back.
    await repo.recordOutcomes([
      {
        deliveryId: job!.deliveryId,
        attempt: 2,
        attemptedAt: new Date(),
        httpStatus: 200,
        latencyMs: 5,
        error: null,
        state: 'succeeded',
        nextAttemptAt: null,
        batchId: null,
      },
      {
        deliveryId: job!.deliveryId,
        attempt: 1,
        attemptedAt: new Date(),
        httpStatus: 500,
        latencyMs: 9,
        error: 'HTTP 500',
        state: 'pending',
        nextAttemptAt: new Date(),
        batchId: null,
      },
    ]);
    const [listed] = await deliveryLog.list({ clientId: 'client_1', eventId: job!.eventId, limit: 5 });
    expect(listed).toMatchObject({ state: 'succeeded', attempts: 2, last_status: 200 });
    expect(listed!.attempt_log.map((a) => [a.attempt, a.http_status])).toEqual([
      [1, 500],
      [2, 200],
    ]);
  });
  it("when a retry timer fires before its attempt's failure is written, then the delivery is still to take until that attempt is claimed or ended", async () => {
    const [job] = await repo.recordEvents([newEvent()]);
    const failed = (attempt: number, state: 'pending' | 'failed') => ({
      deliveryId: job!.deliveryId,
      attempt,
      attemptedAt: new Date(),
      httpStatus: 503,
      latencyMs: 3,
      error: 'HTTP 503',
      state,
      nextAttemptAt: state === 'pending' ? new Date() : null,
      batchId: null,
    });

    // Attempt 1 in flight, its failure not yet written: attempt 2 cannot be claimed, and is still to take.
    expect(await repo.claim(job!.deliveryId, 2)).toBeUndefined();
    expect(await repo.awaitingAttempt([job!.deliveryId, 'dlv_unknown'], 2)).toEqual([job!.deliveryId]);
    await repo.recordOutcomes([failed(1, 'pending')]);
    expect(await repo.awaitingAttempt([job!.deliveryId], 2)).toEqual([job!.deliveryId]);
    expect(await repo.claim(job!.deliveryId, 2)).toMatchObject({ attempt: 2 });
    // Taken: a second fire of the same timer has nothing left to wait for.
    expect(await repo.awaitingAttempt([job!.deliveryId], 2)).toEqual([]);
    await repo.recordOutcomes([failed(2, 'failed')]);
    expect(await repo.awaitingAttempt([job!.deliveryId], 3)).toEqual([]);
  });

  it('when an attempt is overdue and nobody holds it, then the sweep takes it once; the last failure makes its alert due', async () => {
    const [job] = await repo.recordEvents([newEvent()]);
    await repo.recordOutcomes([
      {
        deliveryId: job!.deliveryId,
        attempt: 1,
        attemptedAt: new Date(),
        httpStatus: null,
        latencyMs: 5000,
        error: 'timeout',
        state: 'pending',
        nextAttemptAt: new Date(Date.now() - 60_000),
        batchId: null,
      },
    ]);
    const swept = await repo.claimOverdue(10_000, 100);
    expect(swept.map((j) => j.deliveryId)).toContain(job!.deliveryId);
    expect((await repo.claimOverdue(10_000, 100)).map((j) => j.deliveryId)).not.toContain(job!.deliveryId);
    await repo.recordOutcomes([
      {
        deliveryId: job!.deliveryId,
        attempt: 2,
        attemptedAt: new Date(Date.now() - 120_000),
        httpStatus: 503,
        latencyMs: 3,
        error: 'HTTP 503',
        state: 'failed',
        nextAttemptAt: null,
        batchId: null,
      },
    ]);
    expect((await alerts.alertsDue(60_000, 100)).map((d) => d.delivery_id)).toContain(job!.deliveryId);
    expect(await alerts.markAlertSent(job!.deliveryId)).toBe(true);
    expect(await alerts.markAlertSent(job!.deliveryId)).toBe(false);
  });

  it('when the deliveries of a batch are dropped together and their alert is left to the sweep, then it sends one e-mail naming each event', async () => {
    const mail = await startMailCatcher();
    try {
      const e = (await endpoints.insert(
        {
          endpointId: newId('whe'),
          clientId: 'client_1',
          mode: 'live',
          url: 'https://batches.example/',
          events: ['sms.sent'],
          secret: 's',
          description: '',
          batch: true,
        },
        20,
      ))!;
      const toEndpoint = (): NewEvent => ({
        ...newEvent(),
        destinations: [
          { deliveryId: newId('dlv'), key: `endpoint:${e.endpoint_id}`, url: e.url, endpointId: e.endpoint_id, secret: 's', batch: true },
        ],
      });
      const batch = await repo.recordEvents([toEndpoint(), toEndpoint(), toEndpoint()]);
      const alone = await repo.recordEvents([newEvent()]);
      const failed = (j: { deliveryId: string }, batchId: string | null) => ({
        deliveryId: j.deliveryId,
        attempt: 1,
        attemptedAt: new Date(Date.now() - 120_000),
        httpStatus: 500,
        latencyMs: 4,
        error: 'HTTP 500',
        state: 'failed' as const,
        nextAttemptAt: null,
        batchId,
      });
      await repo.recordOutcomes([...batch.map((j) => failed(j, 'whb_dropped')), failed(alone[0]!, null)]);
      const accounts = { getClient: async () => ({ name: 'Acme', email: 'owner@example.com', emailVerified: true }) };
      const mailer = new AlertMailer(
        alerts,
        accounts as unknown as ConstructorParameters<typeof AlertMailer>[1],
        nodemailer.createTransport(mail.url),
        'alerts@example.com',
        createLogger('alerts-test', 'silent'),
      );

      expect(await mailer.sendDue(60_000)).toBeGreaterThanOrEqual(2);

      const forBatch = mail.mails.filter((m) => batch.some((j) => m.raw.includes(j.eventId)));
      expect(forBatch).toHaveLength(1);
      expect(forBatch[0]!.subject).toBe(`Webhook delivery failed: 3 events to ${e.endpoint_id}`);
      for (const j of batch) expect(forBatch[0]!.raw.replace(/=\r?\n/g, '')).toContain(j.eventId);
      expect(mail.mails.filter((m) => m.raw.includes(alone[0]!.eventId))).toHaveLength(1);
      const due = (await alerts.alertsDue(0, 500)).map((d) => d.delivery_id);
      for (const j of [...batch, ...alone]) expect(due).not.toContain(j.deliveryId);
    } finally {
      await mail.stop();
    }
  });

  it('when an endpoint is deleted, then its pending deliveries end without an alert', async () => {
    const e = (await endpoints.insert(
      {
        endpointId: newId('whe'),
        clientId: 'client_2',
        mode: 'live',
        url: 'https://x.example/',
        events: ['sms.sent'],
        secret: 's',
        description: '',
        batch: false,
      },
      20,
    ))!;
    const ev = newEvent();
    ev.clientId = 'client_2';
    ev.destinations = [
      { deliveryId: newId('dlv'), key: `endpoint:${e.endpoint_id}`, url: e.url, endpointId: e.endpoint_id, secret: 's', batch: false },
    ];
    await repo.recordEvents([ev]);
    expect(await endpoints.delete('client_2', e.endpoint_id)).toBe(true);
    expect(await endpoints.delete('client_2', e.endpoint_id)).toBe(false);
    const [d] = await deliveryLog.list({ clientId: 'client_2', limit: 5 });
    expect(d).toMatchObject({ state: 'failed', last_error: 'endpoint deleted' });
    expect((await alerts.alertsDue(0, 100)).map((x) => x.delivery_id)).not.toContain(d!.delivery_id);
  });

  it('when an endpoint changes its URL or is disabled, then its retries go to the new URL, and disabling ends what is pending', async () => {
    const e = (await endpoints.insert(
      {
        endpointId: newId('whe'),
        clientId: 'client_3',
        mode: 'live',
        url: 'https://old.example/',
        events: ['sms.sent'],
        secret: 's3',
        description: '',
        batch: false,
      },
      20,
    ))!;
    const ev = { ...newEvent(), clientId: 'client_3' };
    ev.destinations = [
      { deliveryId: newId('dlv'), key: `endpoint:${e.endpoint_id}`, url: e.url, endpointId: e.endpoint_id, secret: 's3', batch: false },
    ];
    const [job] = await repo.recordEvents([ev]);
    await repo.recordOutcomes([
      {
        deliveryId: job!.deliveryId,
        attempt: 1,
        attemptedAt: new Date(),
        httpStatus: 500,
        latencyMs: 3,
        error: 'HTTP 500',
        state: 'pending',
        nextAttemptAt: new Date(),
        batchId: null,
      },
    ]);
    await endpoints.update('client_3', e.endpoint_id, { url: 'https://new.example/' });
    const retry = await repo.claim(job!.deliveryId, 2);
    expect(retry).toMatchObject({ url: 'https://new.example/', secret: 's3' });
    await endpoints.update('client_3', e.endpoint_id, { enabled: false });
    const [d] = await deliveryLog.list({ clientId: 'client_3', limit: 5 });
    expect(d).toMatchObject({ state: 'failed', last_error: 'endpoint disabled' });
  });

  it('when events are older than the log keeps them, then the cleanup deletes them with their deliveries and attempts', async () => {
    const [job] = await repo.recordEvents([newEvent()]);
    await pool.query(`UPDATE events SET created_at = now() - interval '31 days' WHERE event_id = $1`, [job!.eventId]);
    expect(await deliveryLog.deleteOlderThan(30)).toBeGreaterThanOrEqual(1);
    expect(await deliveryLog.list({ clientId: 'client_1', eventId: job!.eventId, limit: 5 })).toEqual([]);
  });

  const succeeded = (deliveryId: string, attempt = 1) => ({
    deliveryId,
    attempt,
    attemptedAt: new Date(),
    httpStatus: 200,
    latencyMs: 3,
    error: null,
    state: 'succeeded' as const,
    nextAttemptAt: null,
    batchId: null,
  });
  const rowsOf = async (eventIds: string[]) => {
    const { rows } = await pool.query<{ deliveries: number; attempts: number }>(
      `SELECT (SELECT count(*)::int FROM deliveries WHERE event_id = ANY($1)) AS deliveries,
              (SELECT count(*)::int FROM attempts a WHERE NOT EXISTS (SELECT 1 FROM deliveries d WHERE d.delivery_id = a.delivery_id)) AS attempts`,
      [eventIds],
    );
    return rows[0];
  };

  it('when the cleanup deletes old events, then their deliveries, replays and attempts go with them, and younger ones stay whole', async () => {
    const [old, young] = [newEvent(2), newEvent(1)];
    const jobs = await repo.recordEvents([old, young]);
    await repo.recordOutcomes(jobs.map((j) => succeeded(j.deliveryId)));
    const stored = await deliveryLog.event('client_1', old.eventId);
    const replay = await repo.addDelivery(
      { eventId: old.eventId, clientId: 'client_1', mode: 'live', kind: old.kind, data: old.data, traceparent: null },
      { ...old.destinations[0]!, deliveryId: newId('dlv') },
      stored!.destinations[0]!.delivery_id,
    );
    await repo.recordOutcomes([succeeded(replay.deliveryId)]);
    await pool.query(`UPDATE events SET created_at = now() - interval '31 days' WHERE event_id = $1`, [old.eventId]);

    expect(await deliveryLog.deleteOlderThan(30)).toBeGreaterThanOrEqual(1);

    expect(await rowsOf([old.eventId])).toEqual({ deliveries: 0, attempts: 0 });
    const [kept] = await deliveryLog.list({ clientId: 'client_1', eventId: young.eventId, limit: 5 });
    expect(kept).toMatchObject({ state: 'succeeded', attempts: 1 });
    expect(kept!.attempt_log).toHaveLength(1);
  });

  it('when the cleanup deleted a delivery during its attempt, then its outcome writes no attempt and the others of the batch are written', async () => {
    const [gone, other] = await repo.recordEvents([newEvent(), newEvent()]);
    await pool.query(`UPDATE events SET created_at = now() - interval '31 days' WHERE event_id = $1`, [gone!.eventId]);
    await deliveryLog.deleteOlderThan(30);

    await repo.recordOutcomes([succeeded(gone!.deliveryId), succeeded(other!.deliveryId)]);

    expect(await rowsOf([gone!.eventId])).toEqual({ deliveries: 0, attempts: 0 });
    const [written] = await deliveryLog.list({ clientId: 'client_1', eventId: other!.eventId, limit: 5 });
    expect(written).toMatchObject({ state: 'succeeded', attempts: 1, last_status: 200 });
  });

  it('when an old event is redelivered while the cleanup deletes it, then the cleanup waits and takes the new deliveries too', async () => {
    const event = newEvent();
    await repo.recordEvents([event]);
    await pool.query(`UPDATE events SET created_at = now() - interval '31 days' WHERE event_id = $1`, [event.eventId]);
    // The redelivery finds a new destination; another transaction holding the same one keeps it
    // waiting between storing the event and committing its deliveries.
    const added = { ...event.destinations[0]!, deliveryId: newId('dlv'), key: 'url:https://new.example/', url: 'https://new.example/' };
    const blocker = await pool.connect();
    try {
      await blocker.query('BEGIN');
      await blocker.query(
        `INSERT INTO deliveries (delivery_id, event_id, client_id, url, destination) VALUES ($1, $2, 'client_1', $3, $4)`,
        [newId('dlv'), event.eventId, added.url, added.key],
      );
      const redelivery = repo.recordEvents([{ ...event, destinations: [added] }]);
      await sleep(200);
      const cleanup = deliveryLog.deleteOlderThan(30);
      await sleep(200);
      await blocker.query('ROLLBACK');
      expect(await redelivery).toHaveLength(1);
      await cleanup;
    } finally {
      blocker.release();
    }
    expect(await rowsOf([event.eventId])).toEqual({ deliveries: 0, attempts: 0 });
  });

  it('when an outcome is being written while the cleanup deletes its delivery, then the cleanup waits and takes the attempt too', async () => {
    const [job] = await repo.recordEvents([newEvent()]);
    await repo.recordOutcomes([{ ...succeeded(job!.deliveryId), httpStatus: 500, state: 'pending', nextAttemptAt: new Date() }]);
    await pool.query(`UPDATE events SET created_at = now() - interval '31 days' WHERE event_id = $1`, [job!.eventId]);
    // Another transaction writing the same attempt keeps the outcome waiting before its commit.
    const blocker = await pool.connect();
    try {
      await blocker.query('BEGIN');
      await blocker.query(`INSERT INTO attempts (delivery_id, attempt, attempted_at, latency_ms) VALUES ($1, 2, now(), 1)`, [
        job!.deliveryId,
      ]);
      const outcome = repo.recordOutcomes([succeeded(job!.deliveryId, 2)]);
      await sleep(200);
      const cleanup = deliveryLog.deleteOlderThan(30);
      await sleep(200);
      await blocker.query('ROLLBACK');
      await outcome;
      await cleanup;
    } finally {
      blocker.release();
    }
    expect(await rowsOf([job!.eventId])).toEqual({ deliveries: 0, attempts: 0 });
  });
});
