import type { AgentReport } from '@smsgw/platform';
import { fleetHarness, newClientId, newDeviceId, type FleetHarness } from './support/fleet';
import { startMessageService, type RunningService } from './support/service';

describe('the SIM of a message: requested, chosen at the acknowledgement, reported', () => {
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

  const report = (messageId: string, deviceId: string, extra: Partial<AgentReport>): AgentReport => ({
    message_id: messageId,
    device_id: deviceId,
    status: 'sent',
    at: new Date().toISOString(),
    ...extra,
  });

  it('when a send asks for a SIM and replies, then the message stores and shows them, the SIM being the requested one until a phone takes it', async () => {
    const client = newClientId();
    const device = newDeviceId();
    const id = await fleet.send(client, device, { sim: 2, replies: true, webhookUrl: 'https://example.com/hook' });

    expect(await fleet.row(id)).toMatchObject({ requested_sim: 2, sim: 2, replies: true });
    expect(await fleet.get(client, id)).toMatchObject({ sim: 2, requestedSim: 2, replies: true });
    const plain = await fleet.send(client, device);
    expect(await fleet.get(client, plain)).toMatchObject({ sim: 0, requestedSim: 0, replies: false });
  });

  it('when a send asks for a SIM outside 1 to 8, or for replies without a webhook_url, then it is refused naming the field', async () => {
    const client = newClientId();
    const device = newDeviceId();
    await expect(fleet.send(client, device, { sim: 9 })).rejects.toMatchObject({ code: 'VALIDATION_ERROR', details: [{ field: 'sim' }] });
    await expect(fleet.send(client, device, { sim: -1 })).rejects.toMatchObject({ code: 'VALIDATION_ERROR', details: [{ field: 'sim' }] });
    await expect(fleet.send(client, device, { replies: true })).rejects.toMatchObject({
      code: 'VALIDATION_ERROR',
      details: [{ field: 'replies' }],
    });
  });

  it('when a batch carries one SIM per message and replies, then each message stores its own; a bad one names its message', async () => {
    const client = newClientId();
    const device = newDeviceId();
    const batch = await svc.client.sendBatch({
      clientId: client,
      mode: 'MODE_LIVE',
      priority: 3,
      deviceIds: [device, device],
      messages: [
        { to: '+33612345678', text: 'a' },
        { to: '+33612345679', text: 'b' },
      ],
      sims: [1, 0],
      replies: true,
      webhookUrl: 'https://example.com/hook',
    });
    expect(batch.messages.map((m) => [m.requestedSim, m.sim, m.replies])).toEqual([
      [1, 1, true],
      [0, 0, true],
    ]);
    await expect(
      svc.client.sendBatch({
        clientId: client,
        mode: 'MODE_LIVE',
        priority: 3,
        deviceIds: [device],
        messages: [{ to: '+33612345678', text: 'a' }],
        sims: [12],
      }),
    ).rejects.toMatchObject({ details: [{ field: 'messages[0].sim' }] });
  });

  it("when an OTP's SMS asks for a SIM, then it is stored with it", async () => {
    const client = newClientId();
    const { message } = await svc.client.sendOtpMessage({
      clientId: client,
      mode: 'MODE_LIVE',
      deviceId: newDeviceId(),
      to: '+33612345678',
      text: 'Votre code : 123456',
      maskedText: 'Votre code : ******',
      metadataJson: '',
      expiresAt: new Date(Date.now() + 60_000).toISOString(),
      sim: 3,
    });
    expect(message).toMatchObject({ requestedSim: 3, sim: 3 });
  });

  it("when a phone claims with the slots that have room, then a message asking for another slot waits, in its own queue and in the client's fleet", async () => {
    const client = newClientId();
    const [a, b] = [newDeviceId(), newDeviceId()];
    const wantsTwo = await fleet.send(client, a, { sim: 2, priority: 1 });
    const any = await fleet.send(client, a);
    const wantsOne = await fleet.send(client, a, { sim: 1 });
    const claim = (deviceId: string, sims: number[]) =>
      svc.client.claimNext({ deviceId, clientId: client, leaseMs: 30_000, mode: 'MODE_LIVE', simsWithRoom: sims });

    expect((await claim(a, [1])).message?.messageId).toBe(any);
    expect((await claim(a, [1])).message?.messageId).toBe(wantsOne);
    expect((await claim(a, [1])).message).toBeFalsy();
    expect((await claim(a, [1, 2])).message?.messageId).toBe(wantsTwo);

    // The same rule for a message opened to the fleet.
    const pooled = await fleet.send(client, a, { sim: 2 });
    await svc.pool.query('UPDATE messages SET fleet = true WHERE message_id = $1', [pooled]);
    expect((await claim(b, [1])).message).toBeFalsy();
    expect((await claim(b, [2])).message?.messageId).toBe(pooled);

    // No list (a phone with one SIM, or unknown): any message.
    const another = await fleet.send(client, a, { sim: 4 });
    expect((await claim(a, [])).message?.messageId).toBe(another);
  });

  it("when the hub acknowledges with a SIM and the phone reports one, then the message's SIM follows, and the events carry it (null when unknown)", async () => {
    const client = newClientId();
    const device = newDeviceId();
    const id = await fleet.send(client, device);
    expect(await fleet.claim(device, client)).toBe(id);
    await svc.client.acceptMessage({ deviceId: device, messageId: id, at: new Date().toISOString(), sim: 2 });
    expect((await fleet.get(client, id)).sim).toBe(2);

    await fleet.report(report(id, device, { status: 'sent', sim: 1 }));
    const sent = await fleet.get(client, id);
    expect(sent).toMatchObject({ status: 'sent', sim: 1 });
    expect(sent.attempts.at(-1)).toMatchObject({ status: 'sent', sim: 1 });
    // A report without a SIM keeps the one the message has.
    await fleet.report(report(id, device, { status: 'delivered' }));
    expect(await fleet.get(client, id)).toMatchObject({ status: 'delivered', sim: 1 });
    const events = await fleet.events(id);
    expect(events.map((e) => [e.event, e.data.sim])).toEqual([
      ['sms.sent', 1],
      ['sms.delivered', 1],
    ]);

    const unknown = await fleet.send(client, device, { message: { to: '+33612345670', text: 'x', metadataJson: '' } });
    expect(await fleet.claim(device, client)).toBe(unknown);
    await svc.client.acceptMessage({ deviceId: device, messageId: unknown, at: new Date().toISOString() });
    await fleet.report(report(unknown, device, { status: 'failed', error: { code: 'OUT_OF_NETWORK', message: 'x' } }));
    const [failed] = await fleet.events(unknown);
    expect(failed).toMatchObject({ event: 'sms.failed', data: { sim: null } });
  });

  it('when a phone fails a message without sending it, then the attempt keeps the SIM of that try and the message takes its requested SIM again', async () => {
    const client = newClientId();
    const [a] = [newDeviceId()];
    const id = await fleet.send(client, a);
    expect(await fleet.claim(a, client)).toBe(id);
    await svc.client.acceptMessage({ deviceId: a, messageId: id, at: new Date().toISOString(), sim: 2 });
    await fleet.report(
      report(id, a, {
        status: 'failed',
        error: { code: 'DEVICE_ERROR', message: 'SIM 2 absente' },
        not_sent: true,
        retry_elsewhere: true,
      }),
    );
    const message = await fleet.get(client, id);
    expect(message.sim).toBe(0);
    expect(message.attempts.map((t) => [t.deviceId, t.status, t.sim])).toEqual([
      [a, 'failed', 2],
      [a, 'queued', 0],
    ]);
  });
});
