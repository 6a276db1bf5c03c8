import type { AgentReport } from '@smsgw/platform';
import { randomHex } from './support/database';
import { storedEvents } from './support/events';
import { fleetHarness, newClientId, newDeviceId, type FleetHarness } from './support/fleet';
import { startMessageService, type RunningService } from './support/service';

/**
 * The phones' reports as the hubs store them, many in a batch: applied together, their events
 * published together, each message's reports in the order the batch holds them.
 */
describe('batches of reports, from JetStream to the messages and their events', () => {
  let svc: RunningService;
  let fleet: FleetHarness;

  beforeAll(async () => {
    svc = await startMessageService();
    fleet = await fleetHarness(svc);
  });

  afterAll(async () => {
    await fleet?.close();
    await svc?.stop();
  });

  const report = (messageId: string, deviceId: string, status: AgentReport['status'], at: string, extra: Partial<AgentReport> = {}) => ({
    message_id: messageId,
    device_id: deviceId,
    status,
    at,
    ...extra,
  });

  /** A message queued on `deviceId`, claimed by its phone. */
  async function onPhone(clientId: string, deviceId: string): Promise<string> {
    const id = await fleet.send(clientId, deviceId);
    expect(await fleet.claim(deviceId, clientId)).toBe(id);
    return id;
  }

  it('when one batch holds the reports of several messages, sent and delivered of one among them, then each message moves in order and their events leave in one message named after the batch', async () => {
    const client = newClientId();
    const [a, b] = [newDeviceId(), newDeviceId()];
    const [first, second] = [await onPhone(client, a), await onPhone(client, b)];
    const batchId = `rep_${randomHex()}`;

    await fleet.reports(
      [
        report(first, a, 'accepted', '2030-05-06T07:00:00.000Z'),
        report(first, a, 'sent', '2030-05-06T07:00:01.000Z'),
        report(second, b, 'failed', '2030-05-06T07:00:01.500Z', { error: { code: 'BLACKLISTED', message: 'x' } }),
        report(first, a, 'delivered', '2030-05-06T07:00:03.000Z'),
      ],
      batchId,
    );

    expect(await fleet.row(first)).toMatchObject({
      status: 'delivered',
      accepted_at: new Date('2030-05-06T07:00:00.000Z'),
      sent_at: new Date('2030-05-06T07:00:01.000Z'),
      delivered_at: new Date('2030-05-06T07:00:03.000Z'),
    });
    expect(await fleet.row(second)).toMatchObject({ status: 'failed', error_code: 'BLACKLISTED' });
    expect((await fleet.events(first)).map((e) => e.event)).toEqual(['sms.sent', 'sms.delivered']);
    expect((await fleet.events(second)).map((e) => e.event)).toEqual(['sms.failed']);
    const carriers = (await storedEvents(fleet.nats)).filter((e) => [first, second].includes(String(e.event.data.message_id)));
    expect(new Set(carriers.map((e) => e.msgId))).toEqual(new Set([`events-of-${batchId}`]));
  });

  it('when the same reports come again in another batch (a phone sent them twice), then nothing moves and no event is published twice', async () => {
    const client = newClientId();
    const device = newDeviceId();
    const id = await onPhone(client, device);
    const reports = [report(id, device, 'sent', '2030-05-06T08:00:00.000Z'), report(id, device, 'delivered', '2030-05-06T08:00:02.000Z')];

    await fleet.reports(reports);
    const before = await fleet.events(id);
    await fleet.reports(reports);
    await fleet.reports([reports[0]]);

    expect(before.map((e) => e.event)).toEqual(['sms.sent', 'sms.delivered']);
    expect(await fleet.events(id)).toEqual(before);
    expect(await fleet.row(id)).toMatchObject({ status: 'delivered' });
  });

  it('when a batch holds a report that cannot be used, then the others are applied', async () => {
    const client = newClientId();
    const device = newDeviceId();
    const id = await onPhone(client, device);

    await fleet.reports([
      { message_id: id, device_id: device, status: 'exploded', at: 'yesterday' },
      'not a report',
      report(id, device, 'sent', '2030-05-06T09:00:00.000Z'),
    ]);

    expect(await fleet.row(id)).toMatchObject({ status: 'sent' });
    expect((await fleet.events(id)).map((e) => e.event)).toEqual(['sms.sent']);
  });

  it('when batches move many messages through sent, delivered and failed, then the counts by status are those of the messages', async () => {
    const client = newClientId();
    const devices = [newDeviceId(), newDeviceId(), newDeviceId()];
    const ids: [string, string][] = [];
    for (let i = 0; i < 12; i++) {
      const device = devices[i % 3]!;
      ids.push([await onPhone(client, device), device]);
    }
    await fleet.reports(ids.map(([id, d]) => report(id, d, 'sent', '2030-05-06T11:00:00.000Z')));
    await fleet.reports(
      ids.map(([id, d], i) =>
        i % 4 === 0
          ? report(id, d, 'failed', '2030-05-06T11:00:01.000Z', { error: { code: 'OUT_OF_NETWORK', message: 'x' } })
          : report(id, d, 'delivered', '2030-05-06T11:00:01.000Z'),
      ),
    );

    const counted = await svc.pool.query<{ device_id: string; status: string; n: number }>(
      `SELECT device_id, status, sum(n)::int AS n FROM message_counts WHERE client_id = $1 GROUP BY 1, 2 HAVING sum(n) <> 0 ORDER BY 1, 2`,
      [client],
    );
    const actual = await svc.pool.query<{ device_id: string; status: string; n: number }>(
      `SELECT device_id, status, count(*)::int AS n FROM messages WHERE client_id = $1 GROUP BY 1, 2 ORDER BY 1, 2`,
      [client],
    );
    expect(counted.rows).toEqual(actual.rows);
    expect(actual.rows.map((r) => r.status).sort()).toEqual(['delivered', 'delivered', 'delivered', 'failed', 'failed', 'failed']);
  });

  it("when a batch holds another device's report on a message, then that report moves nothing and publishes nothing", async () => {
    const client = newClientId();
    const [owner, other] = [newDeviceId(), newDeviceId()];
    const id = await onPhone(client, owner);

    await fleet.reports([report(id, other, 'delivered', '2030-05-06T10:00:00.000Z')]);

    expect(await fleet.row(id)).toMatchObject({ status: 'queued', delivered_at: null });
    expect(await fleet.events(id)).toEqual([]);
  });
});
