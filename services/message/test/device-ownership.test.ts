import { randomHex } from './support/database';
import { startMessageService, type RunningService } from './support/service';

/**
 * The message service queues on a device only when the device-hub (here a stand-in that knows
 * which devices each client has) says it is the client's: a caller that forgot its own check
 * still cannot queue on another client's phone.
 */
describe('sends on a device that is not the client’s', () => {
  const OURS = 'client_own';
  const theirs = `device_theirs_${randomHex(3)}`;
  const mine = `device_mine_${randomHex(3)}`;
  const asked: string[] = [];
  let svc: RunningService;

  beforeAll(async () => {
    svc = await startMessageService({}, (clientId, deviceId) => {
      asked.push(deviceId);
      return clientId === OURS && deviceId.startsWith('device_mine');
    });
  });

  afterAll(async () => {
    await svc?.stop();
  });

  const item = (deviceId: string, text: string) => ({
    request: { clientId: OURS, mode: 'MODE_LIVE' as const, deviceId, message: { to: '+33612345678', text, metadataJson: '' }, priority: 3 },
    traceparent: '',
  });
  const queuedOn = async (deviceId: string) =>
    (await svc.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM messages WHERE device_id = $1', [deviceId])).rows[0]!.n;

  it('when gathered sends name another client’s device, then each of those alone is refused INVALID_DEVICE_ID and nothing is queued on it', async () => {
    const { results } = await svc.client.sendMany({ items: [item(mine, 'un'), item(theirs, 'deux'), item(mine, 'trois')] });

    expect(results.map((r) => r.errorCode)).toEqual(['', 'INVALID_DEVICE_ID', '']);
    expect(await queuedOn(theirs)).toBe(0);
    expect(await queuedOn(mine)).toBe(2);
  });

  it('when a batch names one device that is not the client’s, then the whole batch is refused and nothing is queued', async () => {
    const other = `device_mine_${randomHex(3)}`;
    const batch = {
      clientId: OURS,
      mode: 'MODE_LIVE' as const,
      deviceIds: [other, theirs],
      messages: [
        { to: '+33611111111', text: 'a', metadataJson: '' },
        { to: '+33622222222', text: 'b', metadataJson: '' },
      ],
      priority: 3,
      webhookUrl: '',
      idempotencyKey: '',
      requestHash: '',
    };

    await expect(svc.client.sendBatch(batch)).rejects.toMatchObject({ code: 'INVALID_DEVICE_ID' });
    expect(await queuedOn(other)).toBe(0);
  });

  it('when an OTP names another client’s device, then it is refused INVALID_DEVICE_ID', async () => {
    const otp = {
      clientId: OURS,
      messageId: '',
      mode: 'MODE_LIVE' as const,
      deviceId: theirs,
      to: '+33612345678',
      text: 'Votre code de vérification est : 123456',
      maskedText: 'Votre code de vérification est : ******',
      metadataJson: '',
      expiresAt: new Date(Date.now() + 60_000).toISOString(),
    };

    await expect(svc.client.sendOtpMessage(otp)).rejects.toMatchObject({ code: 'INVALID_DEVICE_ID' });
    expect(await queuedOn(theirs)).toBe(0);
  });

  it('when a device was found the client’s once, then later sends on it do not ask the device-hub again', async () => {
    const phone = `device_mine_${randomHex(3)}`;
    await svc.client.sendMany({ items: [item(phone, 'premier')] });
    const before = asked.filter((d) => d === phone).length;

    for (let i = 0; i < 5; i++) await svc.client.sendMany({ items: [item(phone, `encore ${i}`), item(phone, 'et encore')] });

    expect(before).toBe(1);
    expect(asked.filter((d) => d === phone)).toHaveLength(1);
    expect(await queuedOn(phone)).toBe(11);
  });
});
