import { AppError, type PromiseClient } from '@smsgw/platform';
import type { otp } from '@smsgw/proto';
import { freePort } from '@smsgw/stack';
import { OtpRepository } from '../src/data/otp.repository';
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
  const smsTo = async (to: string) =>
    (await sys.messagePool.query('SELECT message_id FROM messages WHERE to_number = $1', [to])).rows.map(
      (r: { message_id: string }) => r.message_id,
    );

  interface StoredOtp {
    otp_id: string;
    message_id: string;
    idempotency_key: string | null;
    sealed_text: Buffer | null;
    sms_stored_at: Date | null;
  }
  const latestOtp = async () => (await sys.otpPool.query<StoredOtp>('SELECT * FROM otps ORDER BY created_at DESC LIMIT 1')).rows[0]!;
  const otpById = async (otpId: string) => (await sys.otpPool.query<StoredOtp>('SELECT * FROM otps WHERE otp_id = $1', [otpId])).rows[0];
  const expire = (otpId: string) =>
    sys.otpPool.query("UPDATE otps SET expires_at = now() - interval '1 second' WHERE otp_id = $1", [otpId]);
  /** A replica whose message service is not there: every call fails without an answer. */
  let unreachable: PromiseClient<otp.OtpServiceClient>;

  beforeAll(async () => {
    sys = await startOtpSystem();
    unreachable = await sys.addReplica({ MESSAGE_GRPC_ADDR: `127.0.0.1:${await freePort()}`, GRPC_DEADLINE_MS: '400' });
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
    for (let i = 0; i < 9; i++)
      await sys.otp.sendOtp({ ...req, idempotencyKey: `key-1-${i}`, requestHash: `h-${i}`, deviceId: `${req.deviceId}x${i}` });
    expect((await errorOf(sys.otp.sendOtp({ ...req, idempotencyKey: 'key-1-last', requestHash: 'h-last' }))).code).toBe('OTP_RATE_LIMITED');
  });

  it('when 8 requests with the same Idempotency-Key arrive at once, then each answers the same OTP or IDEMPOTENCY_IN_PROGRESS, one SMS is stored and one place is taken', async () => {
    const req = request({ idempotencyKey: 'key-concurrent', requestHash: 'hash-concurrent' });
    const outcomes = await Promise.allSettled(Array.from({ length: 8 }, () => sys.otp.sendOtp(req)));
    const answered = outcomes.flatMap((o) => (o.status === 'fulfilled' ? [o.value] : []));
    const refused = outcomes.flatMap((o) => (o.status === 'rejected' ? [(o.reason as AppError).code] : []));
    expect(answered.length).toBeGreaterThan(0);
    expect(new Set(answered.map((a) => a.otpId)).size).toBe(1);
    expect(answered.filter((a) => !a.replayed)).toHaveLength(1);
    expect(new Set(refused)).toEqual(new Set(refused.length > 0 ? ['IDEMPOTENCY_IN_PROGRESS'] : []));
    expect(await smsTo(req.to)).toEqual([answered[0]!.messageId]);
    // Nine more for the number fit in the hour.
    for (let i = 0; i < 9; i++) await sys.otp.sendOtp({ ...req, idempotencyKey: `key-concurrent-${i}`, requestHash: `hc-${i}` });
    expect((await errorOf(sys.otp.sendOtp({ ...req, idempotencyKey: 'key-concurrent-last', requestHash: 'hc-last' }))).code).toBe(
      'OTP_RATE_LIMITED',
    );
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

  it('when the answer is lost and the request had no Idempotency-Key, then the OTP is kept but its text is not: nothing could ever use it', async () => {
    const req = request();
    const lost = await errorOf(unreachable.sendOtp(req));
    expect(lost.code).toBe('SERVICE_UNAVAILABLE');
    const kept = await latestOtp();
    expect(kept).toMatchObject({ idempotency_key: null, sealed_text: null, sms_stored_at: null });
    expect(await smsTo(req.to)).toEqual([]);
  });

  it('when an OTP is sent without an Idempotency-Key, then its row is written once: no text kept, no mark that only a retry would read', async () => {
    const req = request();
    const sent = await sys.otp.sendOtp(req);

    expect(await smsTo(req.to)).toEqual([sent.messageId]);
    expect(await otpById(sent.otpId)).toMatchObject({ idempotency_key: null, sealed_text: null, sms_stored_at: null });
    expect((await sys.otp.verifyOtp({ clientId: CLIENT, mode: 'MODE_TEST', otpId: sent.otpId, code: '123456' })).valid).toBe(true);
  });

  it('when the message service could not be reached, then the retry with the key stores the SMS of that same OTP, once', async () => {
    const req = request({ idempotencyKey: 'key-unreachable', requestHash: 'hash-unreachable' });
    expect((await errorOf(unreachable.sendOtp(req))).code).toBe('SERVICE_UNAVAILABLE');
    const kept = await latestOtp();
    expect(kept).toMatchObject({ idempotency_key: 'key-unreachable', sms_stored_at: null });
    expect(kept.sealed_text).not.toBeNull();
    expect(await smsTo(req.to)).toEqual([]);

    const retry = await sys.otp.sendOtp(req);
    expect(retry).toMatchObject({ otpId: kept.otp_id, messageId: kept.message_id, status: 'queued', replayed: true });
    expect(await smsTo(req.to)).toEqual([kept.message_id]);
    expect(await otpById(kept.otp_id)).toMatchObject({ sealed_text: null, sms_stored_at: expect.any(Date) });
    expect(await sys.otp.sendOtp(req)).toMatchObject({ otpId: kept.otp_id, replayed: true });
    expect(await smsTo(req.to)).toEqual([kept.message_id]);
    expect((await sys.otp.verifyOtp({ clientId: CLIENT, mode: 'MODE_TEST', otpId: kept.otp_id, code: '123456' })).valid).toBe(true);
  });

  it('when an OTP whose answer was lost expires before the retry, then the retry answers it if its SMS was stored; if it never was, that OTP is forgotten and the retry makes a new one', async () => {
    const repo = new OtpRepository(sys.otpPool);
    const held = await sys.addReplica({ MESSAGE_GRPC_ADDR: sys.proxy.address, GRPC_DEADLINE_MS: '400' });
    await held.sendOtp(request()); // the proxied connection is up before answers are held
    const stored = request({ idempotencyKey: 'key-expired-stored', requestHash: 'hash-expired-stored' });
    sys.proxy.holdAnswers = true;
    expect((await errorOf(held.sendOtp(stored))).code).toBe('SERVICE_UNAVAILABLE');
    sys.proxy.holdAnswers = false;
    const first = await latestOtp();
    await expire(first.otp_id);
    await repo.purgeExpired(24);
    expect(await otpById(first.otp_id)).toMatchObject({ sealed_text: null });
    // Expired before the sweep erased its sealed text: it cannot be sent either.
    const never = request({ idempotencyKey: 'key-expired-never', requestHash: 'hash-expired-never' });
    expect((await errorOf(unreachable.sendOtp(never))).code).toBe('SERVICE_UNAVAILABLE');
    const second = await latestOtp();
    await expire(second.otp_id);

    // The second one's SMS never was stored: no answer may name a message that does not exist. Nothing was given
    // to anyone, so the retry is served like a first request.
    const fresh = await sys.otp.sendOtp(never);
    expect(fresh).toMatchObject({ replayed: false, status: 'queued' });
    expect(fresh.otpId).not.toBe(second.otp_id);
    expect(await otpById(second.otp_id)).toBeUndefined();
    expect(await smsTo(never.to)).toEqual([fresh.messageId]);
    expect(await sys.otp.sendOtp(never)).toMatchObject({ otpId: fresh.otpId, replayed: true });
    // The first one's SMS was stored: the same answer, and now it is known.
    expect(await sys.otp.sendOtp(stored)).toMatchObject({
      otpId: first.otp_id,
      messageId: first.message_id,
      replayed: true,
      status: 'queued',
    });
    expect(await smsTo(stored.to)).toEqual([first.message_id]);
    expect((await otpById(first.otp_id))!.sms_stored_at).not.toBeNull();
  });
});
