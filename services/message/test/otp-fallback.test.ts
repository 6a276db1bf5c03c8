import { newId, type AgentReport } from '@smsgw/platform';
import { eventually } from './support/database';
import { fleetHarness, newClientId, newDeviceId, type FleetHarness } from './support/fleet';
import { startMessageService, type RunningService } from './support/service';

/**
 * The delivery fallback of OTPs (issue 39): an OTP's SMS that fails on its phone, or is not
 * delivered when its timer fires, goes once more, the same message with the same text, through
 * another phone of the client. The scheduler is not running here: the test fires the timer as the
 * scheduler would, on `timers.message.otp-fallback`.
 */
describe("an OTP's SMS that fails or is not delivered in time goes once through another phone", () => {
  let svc: RunningService;
  let fleet: FleetHarness;

  beforeAll(async () => {
    svc = await startMessageService({ OTP_EXPIRY_SWEEP_MS: '200' });
    fleet = await fleetHarness(svc);
  });

  afterAll(async () => {
    await fleet?.close();
    await svc?.stop();
  });

  const TEXT = 'Votre code de vérification est : 482913';

  /** An OTP's SMS queued on `deviceId`, claimed (its full text read) and accepted by that phone. */
  async function otpOnPhone(
    clientId: string,
    deviceId: string,
    extra: { fallback?: boolean; pinned?: boolean; expiresInMs?: number } = {},
  ) {
    const messageId = newId('msg');
    await svc.client.sendOtpMessage({
      clientId,
      messageId,
      mode: 'MODE_LIVE',
      deviceId,
      to: '+33612345678',
      text: TEXT,
      maskedText: 'Votre code de vérification est : ******',
      metadataJson: '',
      expiresAt: new Date(Date.now() + (extra.expiresInMs ?? 300_000)).toISOString(),
      fallback: extra.fallback ?? true,
      pinned: extra.pinned ?? false,
    });
    const claimed = await svc.client.claimNext({ deviceId, clientId, leaseMs: 30_000, mode: 'MODE_LIVE' });
    expect([claimed.message?.messageId, claimed.message?.text]).toEqual([messageId, TEXT]);
    await svc.client.acceptMessage({ deviceId, messageId, at: new Date().toISOString() });
    return messageId;
  }

  const report = (messageId: string, deviceId: string, status: AgentReport['status'], code?: string) =>
    fleet.report({
      message_id: messageId,
      device_id: deviceId,
      status,
      at: new Date().toISOString(),
      ...(code ? { error: { code: code as never, message: 'network' } } : {}),
    });

  /** Fires the OTP's fallback timer as the scheduler does, and waits until the service has handled it. */
  async function fireTimer(messageId: string): Promise<void> {
    const { nats } = fleet;
    const ack = await nats.js.publish(nats.names.timer('message.otp-fallback'), JSON.stringify({ message_id: messageId }), {
      msgID: `otp-fallback:${messageId}:test`,
    });
    await eventually(
      async () => {
        const info = await nats.jsm.consumers.info(nats.names.timersStream, 'message-timers');
        return info.ack_floor.stream_seq >= ack.seq && info.num_ack_pending === 0;
      },
      5000,
      'the timer to be handled',
    );
  }

  it('when the phone reports a network failure after sending, then the same message goes to another phone with the same text, with no sms.failed, and is delivered there', async () => {
    const client = newClientId();
    const [a, b] = [newDeviceId(), newDeviceId()];
    const id = await otpOnPhone(client, a);
    expect((await fleet.row(id)).otp_fallback_text).toBeInstanceOf(Buffer);
    await report(id, a, 'sent');
    await report(id, a, 'failed', 'INSUFFICIENT_CREDIT');

    expect(await fleet.row(id)).toMatchObject({
      status: 'queued',
      fleet: true,
      avoid_device_id: a,
      sent_at: null,
      otp_fallback_text: null,
    });
    expect((await fleet.events(id)).map((e) => e.event)).toEqual(['sms.sent']);
    expect(await fleet.claim(a, client)).toBeUndefined();
    const again = await svc.client.claimNext({ deviceId: b, clientId: client, leaseMs: 30_000, mode: 'MODE_LIVE' });
    expect([again.message?.messageId, again.message?.text]).toEqual([id, TEXT]);
    await svc.client.acceptMessage({ deviceId: b, messageId: id, at: new Date().toISOString() });
    await report(id, b, 'sent');
    await report(id, b, 'delivered');
    const final = await fleet.get(client, id);
    expect(final).toMatchObject({ status: 'delivered', deviceId: b, text: 'Votre code de vérification est : ******' });
    expect(final.attempts.map((t) => [t.deviceId, t.status, t.errorCode])).toEqual([
      [a, 'failed', 'INSUFFICIENT_CREDIT'],
      [b, 'delivered', ''],
    ]);
    expect((await fleet.events(id)).map((e) => e.event)).toEqual(['sms.sent', 'sms.sent', 'sms.delivered']);
  });

  it('when the second phone fails it too, then it fails for good with one sms.failed: the fallback goes once', async () => {
    const client = newClientId();
    const [a, b] = [newDeviceId(), newDeviceId()];
    const id = await otpOnPhone(client, a);
    await report(id, a, 'failed', 'OUT_OF_NETWORK');
    expect(await fleet.claim(b, client)).toBe(id);
    await report(id, b, 'failed', 'OUT_OF_NETWORK');
    expect(await fleet.row(id)).toMatchObject({ status: 'failed', device_id: b, error_code: 'OUT_OF_NETWORK' });
    expect((await fleet.events(id)).map((e) => e.event)).toEqual(['sms.failed']);
  });

  it('when the cause is one no phone can help (an invalid number), the OTP is pinned, has no fallback, or the message is not an OTP, then it fails at once', async () => {
    const client = newClientId();
    const a = newDeviceId();
    const invalid = await otpOnPhone(client, a);
    await report(invalid, a, 'failed', 'INVALID_NUMBER');
    const pinned = await otpOnPhone(client, a, { pinned: true });
    await report(pinned, a, 'failed', 'OUT_OF_NETWORK');
    const without = await otpOnPhone(client, a, { fallback: false });
    await report(without, a, 'failed', 'OUT_OF_NETWORK');
    const plain = await fleet.send(client, a);
    expect(await fleet.claim(a, client)).toBe(plain);
    await report(plain, a, 'failed', 'OUT_OF_NETWORK');
    for (const id of [invalid, pinned, without, plain]) {
      expect(await fleet.row(id)).toMatchObject({ status: 'failed', fleet: false });
      expect((await fleet.events(id)).map((e) => e.event)).toEqual(['sms.failed']);
    }
    expect((await fleet.row(pinned)).otp_fallback_text).toBeNull();
    expect((await fleet.row(plain)).otp_fallback_text).toBeNull();
  });

  it('when the fallback timer fires on an OTP sent but not delivered, then it goes to another phone with a moved NOT_DELIVERED attempt; on a delivered one it does nothing and the copy is erased', async () => {
    const client = newClientId();
    const [a, b] = [newDeviceId(), newDeviceId()];
    const late = await otpOnPhone(client, a);
    await report(late, a, 'sent');
    const wakes = fleet.wakes(client);
    await fireTimer(late);
    expect(await fleet.row(late)).toMatchObject({ status: 'queued', fleet: true, avoid_device_id: a, otp_fallback_text: null });
    await eventually(async () => fleet.wakes(client) > wakes, 2000, 'the client woken');
    expect((await fleet.get(client, late)).attempts[0]).toMatchObject({ deviceId: a, status: 'moved', errorCode: 'NOT_DELIVERED' });
    const claimed = await svc.client.claimNext({ deviceId: b, clientId: client, leaseMs: 30_000, mode: 'MODE_LIVE' });
    expect(claimed.message?.text).toBe(TEXT);
    // Fired again (a redelivered timer): nothing more happens.
    await fireTimer(late);
    expect(await fleet.row(late)).toMatchObject({ status: 'queued', device_id: b, fleet: false });

    const delivered = await otpOnPhone(client, a);
    await report(delivered, a, 'sent');
    await report(delivered, a, 'delivered');
    await fireTimer(delivered);
    expect(await fleet.row(delivered)).toMatchObject({ status: 'delivered', device_id: a, otp_fallback_text: null });
  });

  it('when an OTP expires, then the sweep erases its fallback copy within a sweep', async () => {
    const client = newClientId();
    const a = newDeviceId();
    const id = await otpOnPhone(client, a, { expiresInMs: 2000 });
    await report(id, a, 'sent');
    await report(id, a, 'delivered');
    expect((await fleet.row(id)).otp_fallback_text).toBeInstanceOf(Buffer);
    await eventually(async () => (await fleet.row(id)).otp_fallback_text === null, 6000, 'the copy erased');
  });
});
