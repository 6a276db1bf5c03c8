import { AppError } from '@smsgw/platform';
import { startOtpSystem, type OtpSystem } from './support/system';

const CLIENT = 'client_1700000000000000017';

async function errorOf(promise: Promise<unknown>): Promise<AppError> {
  try {
    await promise;
  } catch (err) {
    if (err instanceof AppError) return err;
    throw err;
  }
  throw new Error('expected an error');
}

describe('send-otp Idempotency-Key and lost answers, with the real message service', () => {
  let sys: OtpSystem;
  let n = 0;
  const number = () => `+336${String(20_000_000 + n++).slice(-8)}`;
  const request = (over: Record<string, unknown> = {}) => ({
    clientId: CLIENT,
    mode: 'MODE_TEST' as const,
    deviceId: `device_01JOTPIDEMPOTENCY000000${n++}`,
    to: number(),
    length: 0,
    expirySeconds: 0,
    template: '',
    metadataJson: '',
    idempotencyKey: '',
    requestHash: '',
    ...over,
  });
  const smsTo = async (to: string) => (await sys.messagePool.query('SELECT message_id FROM messages WHERE to_number = $1', [to])).rows.map((r: { message_id: string }) => r.message_id);

  beforeAll(async () => {
    sys = await startOtpSystem();
  });
  afterAll(async () => {
    await sys?.stop();
  });

  it('when a send-otp is made again with its Idempotency-Key, then the same OTP is answered, no second SMS is stored, and the per-number limit counts it once', async () => {
    const req = request({ idempotencyKey: 'key-1', requestHash: 'hash-1' });
    const first = await sys.otp.sendOtp(req);
    const again = await sys.otp.sendOtp(req);
    expect(again).toMatchObject({ otpId: first.otpId, messageId: first.messageId, expiresAt: first.expiresAt, to: req.to, replayed: true });
    expect(first.replayed).toBe(false);
    expect(await smsTo(req.to)).toEqual([first.messageId]);
    const reused = await errorOf(sys.otp.sendOtp({ ...req, requestHash: 'hash-2' }));
    expect(reused.code).toBe('IDEMPOTENCY_KEY_REUSED');
    // Nine more for the number fit in the hour: the replay took no slot.
    for (let i = 0; i < 9; i++) await sys.otp.sendOtp({ ...req, idempotencyKey: `key-1-${i}`, requestHash: `h-${i}`, deviceId: `${req.deviceId}x${i}` });
    expect((await errorOf(sys.otp.sendOtp({ ...req, idempotencyKey: 'key-1-last', requestHash: 'h-last' }))).code).toBe('OTP_RATE_LIMITED');
  });

  it('when the message service stores the SMS but its answer is lost, then the OTP is kept, the caller is told to retry with the key, and the retry completes the same OTP with the same code', async () => {
    const replica = await sys.addReplica({ MESSAGE_GRPC_ADDR: sys.proxy.address, GRPC_DEADLINE_MS: '400' });
    await replica.sendOtp(request()); // the proxied connection is up before answers are held
    const req = request({ idempotencyKey: 'key-lost', requestHash: 'hash-lost', length: 8 });
    sys.proxy.holdAnswers = true;
    const lost = await errorOf(replica.sendOtp(req));
    expect(lost.code).toBe('SERVICE_UNAVAILABLE');
    expect(lost.message).toContain('Idempotency-Key');
    // The SMS was stored all the same, and the OTP was not forgotten.
    const stored = await smsTo(req.to);
    expect(stored).toHaveLength(1);
    const { rows } = await sys.otpPool.query<{ otp_id: string; message_id: string; sealed_text: Buffer | null }>(
      'SELECT otp_id, message_id, sealed_text FROM otps WHERE idempotency_key = $1',
      ['key-lost'],
    );
    expect(rows).toHaveLength(1);
    expect(rows[0]!.message_id).toBe(stored[0]);
    expect(rows[0]!.sealed_text).not.toBeNull();
    sys.proxy.holdAnswers = false;

    const retry = await replica.sendOtp(req);
    expect(retry).toMatchObject({ otpId: rows[0]!.otp_id, messageId: stored[0], replayed: true, status: 'queued' });
    expect(await smsTo(req.to)).toEqual(stored);
    const after = await sys.otpPool.query('SELECT sealed_text FROM otps WHERE otp_id = $1', [retry.otpId]);
    expect(after.rows[0].sealed_text).toBeNull();
    // Test mode: the documented code of the length asked. The OTP the phone would get verifies.
    const verified = await sys.otp.verifyOtp({ clientId: CLIENT, mode: 'MODE_TEST', otpId: retry.otpId, code: '12345678' });
    expect(verified.valid).toBe(true);
  });

  it('when the message service refuses an OTP outright, then nothing is kept and its slot is given back', async () => {
    // Metadata that is not a JSON object: the message service says no and stores nothing.
    const req = request({ idempotencyKey: 'key-refused', requestHash: 'hash-refused', metadataJson: '[1,2]' });
    const refused = await errorOf(sys.otp.sendOtp(req));
    expect(refused.code).not.toBe('SERVICE_UNAVAILABLE');
    const { rows } = await sys.otpPool.query('SELECT 1 FROM otps WHERE idempotency_key = $1', ['key-refused']);
    expect(rows).toEqual([]);
    expect(await smsTo(req.to)).toEqual([]);
    // The same key with a good request is a new OTP, not a replay of the refused one.
    const ok = await sys.otp.sendOtp({ ...req, metadataJson: '' });
    expect(ok.replayed).toBe(false);
  });
});
