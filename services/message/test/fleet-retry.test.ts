import { FAILURE_MESSAGES, type AgentReport } from '@smsgw/platform';
import { eventually } from './support/database';
import { fleetHarness, newClientId, newDeviceId, type FleetHarness } from './support/fleet';
import { startMessageService, type RunningService } from './support/service';

describe('a failure that sent nothing is tried once more on another phone of the client', () => {
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

  const failed = (messageId: string, deviceId: string, extra: Partial<AgentReport> = {}): AgentReport => ({
    message_id: messageId,
    device_id: deviceId,
    status: 'failed',
    at: '2030-05-06T07:00:00.000Z',
    error: { code: 'OUT_OF_NETWORK', message: 'radio off' },
    not_sent: true,
    retry_elsewhere: true,
    ...extra,
  });

  /** A message queued on `deviceId`, claimed and accepted by its phone. */
  async function onPhone(clientId: string, deviceId: string, extra = {}): Promise<string> {
    const id = await fleet.send(clientId, deviceId, extra);
    expect(await fleet.claim(deviceId, clientId)).toBe(id);
    await svc.client.acceptMessage({ deviceId, messageId: id, at: new Date().toISOString() });
    return id;
  }

  it('when a phone fails a message without sending it and another phone is online, then it goes to the fleet avoiding that phone, with no sms.failed, and the client is woken', async () => {
    const client = newClientId();
    const [a, b] = [newDeviceId(), newDeviceId()];
    const id = await onPhone(client, a);
    const wakesBefore = fleet.wakes(client);

    await fleet.report(failed(id, a));

    expect(await fleet.row(id)).toMatchObject({
      status: 'queued',
      accepted_at: null,
      lease_until: null,
      fleet: true,
      avoid_device_id: a,
      error_code: null,
    });
    expect(await fleet.events(id)).toEqual([]);
    await eventually(async () => fleet.wakes(client) > wakesBefore, 2000, 'the client woken');
    expect(fleet.lastWake(client)).toBe('1');
    // Redelivered (the hub published it again): nothing changes.
    await fleet.report(failed(id, a));
    expect(await fleet.row(id)).toMatchObject({ status: 'queued', fleet: true });
    expect((await fleet.get(client, id)).attempts).toHaveLength(2);

    expect(await fleet.claim(a, client)).toBeUndefined();
    expect(await fleet.claim(b, client)).toBe(id);
    await fleet.report({ message_id: id, device_id: b, status: 'sent', at: '2030-05-06T07:01:00.000Z' });
    const sent = await fleet.get(client, id);
    expect(sent).toMatchObject({ status: 'sent', deviceId: b });
    expect(sent.attempts).toEqual([
      {
        deviceId: a,
        status: 'failed',
        errorCode: 'OUT_OF_NETWORK',
        errorMessage: FAILURE_MESSAGES.OUT_OF_NETWORK,
        at: '2030-05-06T07:00:00.000Z',
        sim: 0,
        reconciled: '',
      },
      { deviceId: b, status: 'sent', errorCode: '', errorMessage: '', at: '2030-05-06T07:01:00.000Z', sim: 0, reconciled: '' },
    ]);
    expect((await fleet.events(id)).map((e) => e.event)).toEqual(['sms.sent']);
  });

  it('when the second phone fails it too, then the message fails for good with one sms.failed and both attempts', async () => {
    const client = newClientId();
    const [a, b, c] = [newDeviceId(), newDeviceId(), newDeviceId()];
    const id = await onPhone(client, a);
    await fleet.report(failed(id, a));
    expect(await fleet.claim(b, client)).toBe(id);
    await fleet.report(failed(id, b, { at: '2030-05-06T07:02:00.000Z', error: { code: 'DEVICE_ERROR', message: 'x' } }));

    const final = await fleet.get(client, id);
    expect(final).toMatchObject({ status: 'failed', deviceId: b, errorCode: 'DEVICE_ERROR' });
    expect(final.attempts.map((t) => [t.deviceId, t.status, t.errorCode, t.at])).toEqual([
      [a, 'failed', 'OUT_OF_NETWORK', '2030-05-06T07:00:00.000Z'],
      [b, 'failed', 'DEVICE_ERROR', '2030-05-06T07:02:00.000Z'],
    ]);
    expect(await fleet.events(id)).toEqual([
      expect.objectContaining({
        event: 'sms.failed',
        data: expect.objectContaining({ error: expect.objectContaining({ code: 'DEVICE_ERROR' }) }),
      }),
    ]);
    expect(await fleet.claim(c, client)).toBeUndefined();
  });

  it('when the message is pinned, the failure is an expiry, the phone cannot tell it sent nothing, or no other phone is online, then it fails at once', async () => {
    const client = newClientId();
    const a = newDeviceId();
    const cases: [Record<string, unknown>, Partial<AgentReport>][] = [
      [{ pinned: true }, {}],
      [{}, { error: { code: 'EXPIRED', message: 'expired' } }],
      [{}, { not_sent: false }],
      [{}, { retry_elsewhere: false }],
    ];
    for (const [send, report] of cases) {
      const id = await onPhone(client, a, send);
      await fleet.report(failed(id, a, report));
      expect(await fleet.row(id)).toMatchObject({ status: 'failed', fleet: false, attempts: null });
      expect((await fleet.events(id)).map((e) => e.event)).toEqual(['sms.failed']);
      expect((await fleet.get(client, id)).attempts).toEqual([expect.objectContaining({ deviceId: a, status: 'failed' })]);
    }
  });

  it('when a message was already sent, then a later failure report fails it as before and nothing moves', async () => {
    const client = newClientId();
    const a = newDeviceId();
    const id = await onPhone(client, a);
    await fleet.report({ message_id: id, device_id: a, status: 'sent', at: '2030-05-06T07:00:00.000Z' });
    await fleet.report(failed(id, a, { at: '2030-05-06T07:00:05.000Z' }));
    expect(await fleet.row(id)).toMatchObject({ status: 'failed', fleet: false, attempts: null });
  });

  it('when the phone that failed it accepts it again late, then the message stays in the fleet for another phone', async () => {
    const client = newClientId();
    const [a, b] = [newDeviceId(), newDeviceId()];
    const id = await onPhone(client, a);
    await fleet.report(failed(id, a));
    await fleet.report({ message_id: id, device_id: a, status: 'accepted', at: '2030-05-06T07:00:01.000Z' });
    expect(await fleet.row(id)).toMatchObject({ accepted_at: null, fleet: true });
    expect(await fleet.claim(b, client)).toBe(id);
  });
});
