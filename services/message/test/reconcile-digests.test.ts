import type { DeviceDigest } from '@smsgw/platform';
import { eventually, randomHex } from './support/database';
import { fleetHarness, newClientId, newDeviceId, type FleetHarness } from './support/fleet';
import { startMessageService, type RunningService } from './support/service';

/** A phone's digest (protocol 7) as the hub stores it, from JetStream to the repaired messages. */
describe("reconciliation with a phone's digest, from JetStream to the messages", () => {
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

  async function publishDigest(digest: DeviceDigest): Promise<void> {
    const ack = await fleet.nats.js.publish(fleet.nats.names.reportBatch('test'), JSON.stringify({ reports: [], digests: [digest] }), {
      msgID: `digest_${randomHex()}`,
    });
    await eventually(
      async () => {
        const info = await fleet.nats.jsm.consumers.info(fleet.nats.names.reportBatchesStream, 'message-report-batches');
        return info.ack_floor.stream_seq >= ack.seq && info.num_ack_pending === 0;
      },
      5000,
      `digest ${ack.seq} to be acknowledged`,
    );
  }

  const ago = (ms: number) => new Date(Date.now() - ms).toISOString();

  it('when a digest lists an SMS delivered that the service has as queued and leaves out one the phone was given, then the first is corrected with its events and the second goes back to the queue, each repair on its attempts and counted once', async () => {
    const client = newClientId();
    const device = newDeviceId();
    const delivered = await fleet.send(client, device);
    expect(await fleet.claim(device, client)).toBe(delivered);
    const missing = await fleet.send(client, device);
    expect(await fleet.claim(device, client)).toBe(missing);
    await fleet.reports([
      { message_id: delivered, device_id: device, status: 'accepted', at: ago(600_000) },
      { message_id: missing, device_id: device, status: 'accepted', at: ago(590_000) },
    ]);
    const now = new Date().toISOString();
    const digest: DeviceDigest = {
      device_id: device,
      digest_id: randomHex(),
      chunk: 1,
      chunks: 1,
      at: now,
      received_at: now,
      covers_from: ago(3600_000),
      covers_to: now,
      entries: [
        {
          message_id: delivered,
          state: 'delivered',
          parts: 1,
          parts_sent: 1,
          parts_failed: 0,
          parts_delivered: 1,
          accepted_at: ago(600_000),
          sent_at: ago(599_000),
          delivered_at: ago(598_000),
        },
      ],
    };

    await publishDigest(digest);
    await publishDigest({ ...digest, digest_id: randomHex() });

    expect(await fleet.row(delivered)).toMatchObject({
      status: 'delivered',
      repairs: [expect.objectContaining({ kind: 'sent_corrected' })],
    });
    expect((await fleet.events(delivered)).map((e) => e.event)).toEqual(['sms.sent', 'sms.delivered']);
    expect(await fleet.row(missing)).toMatchObject({ status: 'queued', accepted_at: null });
    expect(await fleet.claim(device, client)).toBe(missing);
    const shown = await fleet.get(client, missing);
    expect(shown.attempts[0]).toMatchObject({ deviceId: device, status: 'moved', errorCode: 'NOT_ON_PHONE', reconciled: 'requeued' });
    expect((await fleet.get(client, delivered)).attempts.at(-1)).toMatchObject({ status: 'delivered', reconciled: 'sent_corrected' });
    const { rows } = await svc.pool.query<{ kind: string; count: string }>(
      'SELECT kind, count FROM device_repairs WHERE device_id = $1 ORDER BY kind',
      [device],
    );
    expect(rows.map((r) => [r.kind, Number(r.count)])).toEqual([
      ['requeued', 1],
      ['sent_corrected', 1],
    ]);
  });

  it('when the digest does not reach back to the hand-over, then a message it leaves out stays with the phone', async () => {
    const client = newClientId();
    const device = newDeviceId();
    const held = await fleet.send(client, device);
    expect(await fleet.claim(device, client)).toBe(held);
    await fleet.reports([{ message_id: held, device_id: device, status: 'accepted', at: ago(600_000) }]);
    const now = new Date().toISOString();

    await publishDigest({
      device_id: device,
      digest_id: randomHex(),
      chunk: 1,
      chunks: 1,
      at: now,
      received_at: now,
      covers_from: ago(300_000),
      covers_to: now,
      entries: [],
    });

    expect(await fleet.row(held)).toMatchObject({ status: 'queued', accepted_at: expect.any(Date), repairs: null });
  });
});
