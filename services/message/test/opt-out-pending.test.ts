import { FAILURE_MESSAGES, type AgentReceived } from '@smsgw/platform';
import { eventually, randomHex } from './support/database';
import { fleetHarness, newClientId, newDeviceId, type FleetHarness } from './support/fleet';
import { startMessageService, type RunningService } from './support/service';

describe('opt-out at queue time: a number joining the list fails the messages to it that no phone has taken', () => {
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

  const LISTED = '+33611112222';
  const OTHER = '+33633334444';
  const to = (number: string, text = 'Bonjour') => ({ message: { to: number, text, metadataJson: '' } });
  const otp = (clientId: string, deviceId: string) =>
    svc.client.sendOtpMessage({
      clientId,
      mode: 'MODE_LIVE',
      deviceId,
      to: LISTED,
      text: 'Votre code : 123456',
      maskedText: 'Votre code : ******',
      metadataJson: '',
      expiresAt: new Date(Date.now() + 60_000).toISOString(),
    });

  /** The client's messages to LISTED in every state a phone may have put them in, and messages that must never change. */
  async function messages(clientId: string) {
    const device = newDeviceId();
    // Taken first (priority 1 and alone in the queue), so that the claim picks these two.
    const leased = await fleet.send(clientId, device, { ...to(LISTED), priority: 1 });
    expect(await fleet.claim(device, clientId)).toBe(leased);
    const accepted = await fleet.send(clientId, device, { ...to(LISTED), priority: 1 });
    expect(await fleet.claim(device, clientId)).toBe(accepted);
    await svc.client.acceptMessage({ deviceId: device, messageId: accepted, at: new Date().toISOString() });
    const queued = await fleet.send(clientId, device, to(LISTED));
    const scheduled = await fleet.send(clientId, device, { ...to(LISTED), scheduledAt: new Date(Date.now() + 3_600_000).toISOString() });
    const pooled = await fleet.send(clientId, device, to(LISTED));
    await svc.pool.query('UPDATE messages SET fleet = true WHERE message_id = $1', [pooled]);
    const code = (await otp(clientId, device)).message!.messageId;
    const other = await fleet.send(clientId, device, to(OTHER));
    const test = (await svc.client.send({ clientId, mode: 'MODE_TEST', deviceId: device, priority: 3, ...to(LISTED) })).message!.messageId;
    const elsewhere = await fleet.send(newClientId(), device, to(LISTED));
    return { device, leased, accepted, queued, scheduled, pooled, code, other, test, elsewhere };
  }

  const status = async (id: string) => {
    const row = await fleet.row(id);
    return [row.status, row.error_code];
  };

  it('when AddOptOut lists a number, then its queued, scheduled and fleet messages fail OPTED_OUT with sms.failed; taken ones, OTPs, other numbers, modes and clients stay', async () => {
    const client = newClientId();
    const m = await messages(client);

    await svc.client.addOptOut({ clientId: client, mode: 'MODE_LIVE', phoneNumber: LISTED, source: 'api' });

    for (const id of [m.queued, m.scheduled, m.pooled]) {
      expect(await status(id)).toEqual(['failed', 'OPTED_OUT']);
      expect(await fleet.get(client, id)).toMatchObject({ status: 'failed', errorMessage: FAILURE_MESSAGES.OPTED_OUT });
      const events = await fleet.events(id);
      expect(events.map((e) => [e.event, (e.data.error as { code: string }).code])).toEqual([['sms.failed', 'OPTED_OUT']]);
    }
    expect(await fleet.row(m.pooled)).toMatchObject({ fleet: false });
    for (const id of [m.leased, m.accepted, m.code, m.other, m.test, m.elsewhere]) {
      expect(await status(id)).toEqual(['queued', null]);
      expect(await fleet.events(id)).toEqual([]);
    }
    // The phone that holds the leased one still takes nothing else of the listed number.
    expect(await fleet.claim(m.device, client)).toBe(m.code);
  });

  it("when the client's OTPs do not ignore the list, then a queued OTP to the number fails too", async () => {
    const client = newClientId();
    await svc.client.setOptOutSettings({ clientId: client, optOutKeywords: ['STOP'], startKeywords: ['START'], otpIgnoresOptOut: false });
    const code = (await otp(client, newDeviceId())).message!.messageId;

    await svc.client.addOptOut({ clientId: client, mode: 'MODE_LIVE', phoneNumber: LISTED, source: 'dashboard' });

    expect(await fleet.row(code)).toMatchObject({ status: 'failed', error_code: 'OPTED_OUT', otp_sealed_text: null });
    expect((await fleet.events(code)).map((e) => e.event)).toEqual(['sms.failed']);
  });

  it('when the number sends STOP to a phone of the client, then its messages no phone has taken fail the same way', async () => {
    const client = newClientId();
    const device = newDeviceId();
    const queued = await fleet.send(client, device, to(LISTED));
    const other = await fleet.send(client, device, to(OTHER));
    const stop: AgentReceived = {
      received_id: randomHex(8),
      device_id: device,
      client_id: client,
      mode: 'live',
      from: LISTED,
      text: 'STOP',
      received_at: new Date().toISOString(),
    };

    await fleet.nats.js.publish(fleet.nats.names.agentReceived(device), JSON.stringify(stop), { msgID: randomHex(8) });

    await eventually(async () => (await fleet.row(queued)).status === 'failed', 5000, 'the queued message failed');
    expect(await status(queued)).toEqual(['failed', 'OPTED_OUT']);
    expect((await fleet.events(queued)).map((e) => e.event)).toEqual(['sms.failed']);
    expect(await status(other)).toEqual(['queued', null]);
  });
});
