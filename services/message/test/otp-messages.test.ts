import { AppError, connectNats, createLogger, newId, openText, type Nats, type PublicEvent } from '@smsgw/platform';
import { eventually, NATS_URL, sleep } from './support/database';
import { startMessageService, TEST_SEAL_KEY, type RunningService } from './support/service';
import { storedEvents } from './support/events';

const CLIENT = 'client_1700000000000000042';

describe('OTP messages: masked at rest, sealed until a phone has them, failed once expired', () => {
  let svc: RunningService;
  let nats: Nats;

  beforeAll(async () => {
    svc = await startMessageService({ OTP_EXPIRY_SWEEP_MS: '200' });
    nats = await connectNats({
      url: NATS_URL,
      prefix: svc.natsPrefix,
      name: 'otp-test',
      log: createLogger('t', 'silent'),
    });
  });

  afterAll(async () => {
    await nats?.nc.drain();
    await svc?.stop();
  });

  const device = () => `device_${Math.random().toString(36).slice(2)}`;
  const sendOtp = (
    deviceId: string,
    code: string,
    expiresInMs = 60_000,
    mode: 'MODE_LIVE' | 'MODE_TEST' = 'MODE_LIVE',
    messageId = '',
    clientId = CLIENT,
  ) =>
    svc.client.sendOtpMessage({
      clientId,
      messageId,
      mode,
      deviceId,
      to: '+33612345678',
      text: `Votre code de vérification est : ${code}`,
      maskedText: `Votre code de vérification est : ${'*'.repeat(code.length)}`,
      metadataJson: '{"flow":"login"}',
      expiresAt: new Date(Date.now() + expiresInMs).toISOString(),
    });

  async function events(): Promise<PublicEvent[]> {
    return (await storedEvents(nats)).map((e) => e.event);
  }

  it('when an OTP message is stored, then its row and its status show the code masked, at priority 1, and the phone alone gets the full text', async () => {
    const deviceId = device();
    const { message } = await sendOtp(deviceId, '482913');

    expect(message).toMatchObject({
      status: 'queued',
      priority: 1,
      text: 'Votre code de vérification est : ******',
      parts: 1,
      encoding: 'GSM-7',
    });
    const { rows } = await svc.pool.query<{ body: string; otp_sealed_text: Buffer }>(
      'SELECT body, otp_sealed_text FROM messages WHERE message_id = $1',
      [message!.messageId],
    );
    expect(rows[0]!.body).toBe('Votre code de vérification est : ******');
    expect(rows[0]!.otp_sealed_text.toString('latin1')).not.toContain('482913');
    expect(openText(Buffer.from(TEST_SEAL_KEY, 'hex'), message!.messageId, rows[0]!.otp_sealed_text)).toBe(
      'Votre code de vérification est : 482913',
    );
    expect((await svc.client.getMessage({ clientId: CLIENT, messageId: message!.messageId, mode: 'MODE_LIVE' })).text).toBe(
      'Votre code de vérification est : ******',
    );

    const claimed = await svc.client.claimNext({ deviceId, leaseMs: 5000 });
    expect(claimed.message).toMatchObject({ messageId: message!.messageId, text: 'Votre code de vérification est : 482913', priority: 1 });
  });

  it("when the otp service sends an OTP message again under the id it chose (its answer was lost), then the message stored the first time is answered and no second one is stored; another client's id is refused", async () => {
    const deviceId = device();
    const messageId = newId('msg');
    const first = await sendOtp(deviceId, '731904', 60_000, 'MODE_LIVE', messageId);
    expect(first).toMatchObject({ message: { messageId, status: 'queued' }, replayed: false });
    const again = await Promise.all([
      sendOtp(deviceId, '731904', 60_000, 'MODE_LIVE', messageId),
      sendOtp(deviceId, '731904', 60_000, 'MODE_LIVE', messageId),
    ]);
    expect(again.map((a) => [a.message!.messageId, a.replayed])).toEqual([
      [messageId, true],
      [messageId, true],
    ]);
    const { rows } = await svc.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM messages WHERE message_id = $1', [messageId]);
    expect(rows[0]!.n).toBe(1);
    expect((await svc.client.claimNext({ deviceId, leaseMs: 5000 })).message?.messageId).toBe(messageId);
    expect((await svc.client.claimNext({ deviceId, leaseMs: 5000 })).message?.messageId).toBeFalsy();

    const refused = await sendOtp(device(), '731904', 60_000, 'MODE_LIVE', messageId, 'client_1700000000000000043').catch(
      (err: unknown) => err,
    );
    expect(refused).toBeInstanceOf(AppError);
    expect((refused as AppError).code).toBe('VALIDATION_ERROR');
    expect(((await sendOtp(device(), '731904', 60_000, 'MODE_LIVE', 'msg_not-an-id').catch((err: unknown) => err)) as AppError).code).toBe(
      'VALIDATION_ERROR',
    );
  });

  it('when an OTP message waits behind ordinary messages, then the claim takes it first', async () => {
    const deviceId = device();
    await svc.client.send({
      clientId: CLIENT,
      mode: 'MODE_LIVE',
      deviceId,
      message: { to: '+33612345678', text: 'ordinaire', metadataJson: '' },
      priority: 2,
    });
    const { message } = await sendOtp(deviceId, '1234');
    expect((await svc.client.claimNext({ deviceId, leaseMs: 5000 })).message?.messageId).toBe(message!.messageId);
  });

  it('when the phone reports the OTP message sent, then the sealed text is erased', async () => {
    const deviceId = device();
    const { message } = await sendOtp(deviceId, '90817263');
    await svc.client.claimNext({ deviceId, leaseMs: 5000 });
    await nats.js.publish(
      nats.names.agentReport(deviceId),
      JSON.stringify({ message_id: message!.messageId, device_id: deviceId, status: 'sent', at: new Date().toISOString() }),
    );
    const row = await eventually(async () => {
      const { rows } = await svc.pool.query<{ status: string; otp_sealed_text: Buffer | null }>(
        'SELECT status, otp_sealed_text FROM messages WHERE message_id = $1',
        [message!.messageId],
      );
      return rows[0]!.status === 'sent' ? rows[0] : undefined;
    });
    expect(row.otp_sealed_text).toBeNull();
  });

  it('when an OTP message is cancelled, then the sealed text is erased', async () => {
    const deviceId = device();
    const { message } = await sendOtp(deviceId, '5555');
    await svc.client.cancelMessage({ clientId: CLIENT, messageId: message!.messageId, mode: 'MODE_LIVE' });
    const { rows } = await svc.pool.query<{ otp_sealed_text: Buffer | null }>(
      'SELECT otp_sealed_text FROM messages WHERE message_id = $1',
      [message!.messageId],
    );
    expect(rows[0]!.otp_sealed_text).toBeNull();
  });

  it('when an OTP expires before any phone took its message, then it is never handed out and ends failed EXPIRED with its sms.failed event', async () => {
    const deviceId = device();
    const { message } = await sendOtp(deviceId, '246810', 300);
    await sleep(400);

    expect((await svc.client.claimNext({ deviceId, leaseMs: 5000 })).message?.messageId).toBeFalsy();
    const failed = await eventually(
      async () => {
        const m = await svc.client.getMessage({ clientId: CLIENT, messageId: message!.messageId, mode: 'MODE_LIVE' });
        return m.status === 'failed' ? m : undefined;
      },
      5000,
      'the expired OTP message to fail',
    );
    expect(failed).toMatchObject({ errorCode: 'EXPIRED', text: 'Votre code de vérification est : ******' });
    const { rows } = await svc.pool.query<{ otp_sealed_text: Buffer | null }>(
      'SELECT otp_sealed_text FROM messages WHERE message_id = $1',
      [message!.messageId],
    );
    expect(rows[0]!.otp_sealed_text).toBeNull();
    const event = await eventually(async () => (await events()).find((e) => e.data.message_id === message!.messageId), 5000, 'sms.failed');
    expect(event).toMatchObject({ event: 'sms.failed', data: { status: 'failed', error: { code: 'EXPIRED' } } });
  });

  it('when a claimed OTP message expires under its lease, then it is failed only after the lease ran out', async () => {
    const deviceId = device();
    const { message } = await sendOtp(deviceId, '13579', 300);
    expect((await svc.client.claimNext({ deviceId, leaseMs: 1500 })).message?.messageId).toBe(message!.messageId);
    await sleep(800);
    expect((await svc.client.getMessage({ clientId: CLIENT, messageId: message!.messageId, mode: 'MODE_LIVE' })).status).toBe('queued');
    await eventually(
      async () => {
        const m = await svc.client.getMessage({ clientId: CLIENT, messageId: message!.messageId, mode: 'MODE_LIVE' });
        return m.status === 'failed' && m.errorCode === 'EXPIRED';
      },
      5000,
      'failed after the lease',
    );
  });
});
