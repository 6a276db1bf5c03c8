import { connectNats, createLogger, type Nats } from '@smsgw/platform';
import { dueTimerKey } from '../src/events/scheduled-sends';
import { eventually, NATS_URL, randomHex, sleep } from './support/database';
import { seed, startMessageService, type RunningService } from './support/service';

const DAY = 86_400_000;
const daysAgo = (n: number) => new Date(Date.now() - n * DAY);

/**
 * The scheduler is another service: here its fires are published to the
 * timers stream exactly as it publishes them (subject, payload, Nats-Msg-Id).
 */
describe('timers fired by the scheduler, consumed by the message service', () => {
  let svc: RunningService;
  let nats: Nats;

  beforeAll(async () => {
    svc = await startMessageService({ RETENTION_DAYS: '7', ACCEPTED_REPORT_TIMEOUT_MS: '1000' });
    nats = await connectNats({ url: NATS_URL, prefix: svc.natsPrefix, name: 'message-test', log: createLogger('message-test', 'silent') });
  });

  afterAll(async () => {
    await nats?.nc.drain();
    await svc?.stop();
  });

  const fire = (name: string, payload: object, msgID: string) =>
    nats.js.publish(nats.names.timer(name), JSON.stringify(payload), { msgID });

  it('when the retention job of a period fires, then messages older than RETENTION_DAYS are folded into the rollups', async () => {
    const client = `client_${Date.now()}7`;
    const [old, recent] = await seed(svc, [
      { clientId: client, deviceId: 'device_p1', status: 'delivered', createdAt: daysAgo(8) },
      { clientId: client, deviceId: 'device_p1', status: 'failed', createdAt: daysAgo(6) },
    ]);
    // Nothing runs it on a timer of its own any more.
    await sleep(500);
    expect((await svc.pool.query('SELECT 1 FROM messages WHERE message_id = $1', [old!.messageId])).rowCount).toBe(1);

    const periodStart = new Date(Math.floor(Date.now() / 3_600_000) * 3_600_000).toISOString();
    await fire(
      'message.jobs.retention',
      { job: 'message.retention', period_start: periodStart, period_ms: 3_600_000 },
      `job:message.retention:${periodStart}:${periodStart}`,
    );

    await eventually(
      async () => (await svc.pool.query('SELECT 1 FROM messages WHERE message_id = $1', [old!.messageId])).rowCount === 0,
      5000,
      'the retention run',
    );
    const left = await svc.client.listMessages({ clientId: client, mode: 'MODE_LIVE', page: 1, limit: 50 });
    expect(left.messages.map((m) => m.messageId)).toEqual([recent!.messageId]);
    const stats = await svc.client.getStats({
      clientId: client,
      mode: 'MODE_LIVE',
      fromDate: daysAgo(10).toISOString().slice(0, 10),
      toDate: new Date().toISOString().slice(0, 10),
    });
    expect(stats).toMatchObject({ totalSent: 2, delivered: 1, failed: 1 });
  });

  it('when the report-timeout job of a period fires, then a message the phone accepted and never reported ends failed with EXPIRED', async () => {
    const client = `client_${Date.now()}8`;
    // Queued, then acknowledged, 5 s ago.
    const [lost] = await seed(svc, [{ clientId: client, deviceId: 'device_p2', createdAt: new Date(Date.now() - 5000) }]);
    await svc.client.acceptMessage({ deviceId: 'device_p2', messageId: lost!.messageId, at: new Date(Date.now() - 5000).toISOString() });
    // Nothing runs it on a timer of its own (ACCEPTED_REPORT_SWEEP_INTERVAL_MS is 0 by default).
    await sleep(500);
    expect((await svc.client.getMessage({ clientId: client, messageId: lost!.messageId, mode: 'MODE_LIVE' })).status).toBe('queued');

    const periodStart = new Date(Math.floor(Date.now() / 300_000) * 300_000).toISOString();
    await fire(
      'message.jobs.report-timeout',
      { job: 'message.report-timeout', period_start: periodStart, period_ms: 300_000 },
      `job:message.report-timeout:${periodStart}:${periodStart}`,
    );

    const ended = await eventually(
      async () => {
        const row = await svc.client.getMessage({ clientId: client, messageId: lost!.messageId, mode: 'MODE_LIVE' });
        return row.status === 'failed' ? row : undefined;
      },
      5000,
      'the report-timeout run',
    );
    expect(ended.errorCode).toBe('EXPIRED');
  });

  it('when the timer of a scheduled message fires, then its device hub is woken (or the test-mode simulator, for a test message)', async () => {
    const device = `device_${randomHex()}`;
    const client = `client_${randomHex()}`;
    const wakes: string[] = [];
    const sub = nats.nc.subscribe(nats.names.wake(client, device), { callback: () => void wakes.push('live') });
    const testSub = nats.nc.subscribe(nats.names.testWake, { callback: () => void wakes.push('test') });
    const at = new Date().toISOString();
    await fire('message.due', { message_id: 'msg_1', device_id: device, mode: 'live', client_id: client }, `${dueTimerKey('msg_1')}:${at}`);
    await eventually(async () => wakes.includes('live'), 5000, 'the wake-up');
    await fire('message.due', { message_id: 'msg_2', device_id: device, mode: 'test' }, `${dueTimerKey('msg_2')}:${at}`);
    await eventually(async () => wakes.includes('test'), 5000, 'the test-mode wake-up');
    sub.unsubscribe();
    testSub.unsubscribe();
    expect(wakes).toEqual(['live', 'test']);
  });

  it('when the timer of a scheduled message fires, then every phone of its client is woken too (the message may have moved before it was due)', async () => {
    const device = `device_${randomHex()}`;
    const client = `client_${randomHex()}`;
    const wakes: string[] = [];
    const sub = nats.nc.subscribe(nats.names.wakeClient(client), { callback: () => void wakes.push('client') });
    const at = new Date().toISOString();
    await fire('message.due', { message_id: 'msg_3', device_id: device, mode: 'live', client_id: client }, `${dueTimerKey('msg_3')}:${at}`);
    await eventually(async () => wakes.includes('client'), 5000, "the client's wake-up");
    sub.unsubscribe();
  });

  it('when a message is scheduled and the scheduler cannot be reached, then the send still succeeds and the message stays unclaimable until its time', async () => {
    const device = `device_${randomHex()}`;
    const scheduledAt = new Date(Date.now() + 1500);
    const res = await svc.client.send({
      clientId: `client_${Date.now()}8`,
      mode: 'MODE_LIVE',
      deviceId: device,
      message: { to: '+33612345678', text: 'Plus tard', metadataJson: '' },
      priority: 3,
      webhookUrl: '',
      scheduledAt: scheduledAt.toISOString(),
    });
    expect(res.message!.scheduledAt).toBe(scheduledAt.toISOString());
    expect((await svc.client.claimNext({ deviceId: device, leaseMs: 1000, mode: 'MODE_LIVE' })).message).toBeFalsy();
    await sleep(scheduledAt.getTime() - Date.now() + 50);
    expect((await svc.client.claimNext({ deviceId: device, leaseMs: 1000, mode: 'MODE_LIVE' })).message?.messageId).toBe(
      res.message!.messageId,
    );
  });
});
