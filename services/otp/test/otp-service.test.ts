import { createHmac } from 'node:crypto';
import { AppError } from '@smsgw/platform';
import { startOtpSystem, type OtpSystem } from './support/system';

const CLIENT = 'client_1700000000000000007';
const OTHER_CLIENT = 'client_1700000000000000008';
const DEVICE = 'device_01JOTPTESTDEVICE00000000';

async function errorOf(promise: Promise<unknown>): Promise<AppError> {
  try {
    await promise;
  } catch (err) {
    if (err instanceof AppError) return err;
    throw err;
  }
  throw new Error('expected an error');
}

describe('the otp service over gRPC, with the real message service, Postgres and Redis', () => {
  let sys: OtpSystem;
  let n = 0;
  // A new number for each OTP unless a test needs the same one: the per-number limit stays out of the way.
  const number = () => `+336${String(10_000_000 + n++).slice(-8)}`;

  beforeAll(async () => {
    sys = await startOtpSystem();
  });
  afterAll(async () => {
    await sys?.stop();
  });

  /** Each OTP on a device of its own, so that the claim finds its SMS. */
  const send = async (overrides: Partial<Parameters<OtpSystem['otp']['sendOtp']>[0]> = {}, client = sys.otp) => {
    const deviceId = `${DEVICE}${n++}`;
    const res = await client.sendOtp({
      clientId: CLIENT,
      mode: 'MODE_LIVE',
      deviceId,
      to: number(),
      length: 0,
      expirySeconds: 0,
      template: '',
      metadataJson: '',
      ...overrides,
    });
    return { ...res, deviceId };
  };
  const verify = (otpId: string, code: string, clientId = CLIENT, mode: 'MODE_LIVE' | 'MODE_TEST' = 'MODE_LIVE') =>
    sys.otp.verifyOtp({ clientId, mode, otpId, code });
  /** The code as the phone gets it: the full text handed out by ClaimNext. */
  async function codeFromPhone(
    { deviceId }: { deviceId: string },
    mode: 'MODE_LIVE' | 'MODE_TEST' = 'MODE_LIVE',
  ): Promise<{ messageId: string; text: string; code: string }> {
    const claimed = await sys.messages.claimNext({ deviceId: mode === 'MODE_TEST' ? '' : deviceId, leaseMs: 60_000, mode });
    const text = claimed.message!.text;
    return { messageId: claimed.message!.messageId, text, code: /(\d{4,8})(?!.*\d)/.exec(text)![1]! };
  }

  it('when an OTP is sent, then its SMS is queued at priority 1 with the French default text, the phone gets the code, and nothing stores it in clear', async () => {
    const to = number();
    const res = await send({ to, metadataJson: '{"flow":"signup"}' });

    expect(res).toMatchObject({ otpId: expect.stringMatching(/^otp_/), to, messageId: expect.stringMatching(/^msg_/), status: 'queued' });
    expect(Date.parse(res.expiresAt) - Date.now()).toBeGreaterThan(290_000);
    const phone = await codeFromPhone(res);
    expect(phone.messageId).toBe(res.messageId);
    expect(phone.text).toMatch(/^Votre code de vérification est : \d{6}$/);
    const status = await sys.messages.getMessage({ clientId: CLIENT, messageId: res.messageId, mode: 'MODE_LIVE' });
    expect(status).toMatchObject({ text: 'Votre code de vérification est : ******', priority: 1, metadataJson: '{"flow":"signup"}' });
    const { rows } = await sys.otpPool.query<{ code_hash: Buffer }>('SELECT code_hash FROM otps WHERE otp_id = $1', [res.otpId]);
    expect(rows[0]!.code_hash).toEqual(createHmac('sha256', sys.hashKey).update(`${res.otpId}:${phone.code}`).digest());
    const dump =
      JSON.stringify((await sys.otpPool.query('SELECT * FROM otps')).rows) +
      JSON.stringify((await sys.messagePool.query('SELECT body, metadata FROM messages')).rows);
    expect(dump).not.toContain(phone.code);
  });

  it('when a template is given, then every {{code}} holds the code of the requested length', async () => {
    const res = await send({ template: 'Shop: {{code}} (again {{code}})', length: 8 });
    const phone = await codeFromPhone(res);
    expect(phone.messageId).toBe(res.messageId);
    expect(phone.text).toMatch(/^Shop: (\d{8}) \(again \1\)$/);
    expect((await sys.messages.getMessage({ clientId: CLIENT, messageId: res.messageId, mode: 'MODE_LIVE' })).text).toBe(
      'Shop: ******** (again ********)',
    );
  });

  it('when the options break a rule, then the request is refused with its code and nothing is sent', async () => {
    const count = async () => (await sys.messagePool.query<{ n: number }>('SELECT count(*)::int AS n FROM messages')).rows[0]!.n;
    const before = await count();
    expect((await errorOf(send({ length: 3 }))).code).toBe('INVALID_OTP_LENGTH');
    expect((await errorOf(send({ length: 9 }))).code).toBe('INVALID_OTP_LENGTH');
    expect((await errorOf(send({ expirySeconds: 29 }))).code).toBe('INVALID_OTP_EXPIRY');
    expect((await errorOf(send({ expirySeconds: 3601 }))).code).toBe('INVALID_OTP_EXPIRY');
    expect((await errorOf(send({ template: 'no placeholder' }))).code).toBe('INVALID_TEMPLATE');
    expect((await errorOf(send({ template: `${'x'.repeat(1594)}{{code}}`, length: 7 }))).code).toBe('MESSAGE_TOO_LONG');
    expect(await count()).toBe(before);
    await send({ template: `${'x'.repeat(1594)}{{code}}`, length: 6 }).then((r) => expect(r.status).toBe('queued'));
  });

  it('when the right code is given, then it verifies once; again, then OTP_ALREADY_VERIFIED', async () => {
    const res = await send();
    const { code } = await codeFromPhone(res);
    const ok = await verify(res.otpId, code);
    expect(ok.valid).toBe(true);
    expect(Math.abs(Date.parse(ok.verifiedAt) - Date.now())).toBeLessThan(5000);
    expect((await errorOf(verify(res.otpId, code))).code).toBe('OTP_ALREADY_VERIFIED');
  });

  it('when wrong codes are given, then 2, 1, 0 attempts remain, and afterwards even the right code is OTP_MAX_ATTEMPTS', async () => {
    const res = await send({ length: 4 });
    const { code } = await codeFromPhone(res);
    const wrong = code === '0000' ? '0001' : '0000';
    expect(await verify(res.otpId, wrong)).toMatchObject({ valid: false, attemptsRemaining: 2 });
    expect(await verify(res.otpId, 'abc')).toMatchObject({ valid: false, attemptsRemaining: 1 });
    expect(await verify(res.otpId, wrong)).toMatchObject({ valid: false, attemptsRemaining: 0 });
    expect((await errorOf(verify(res.otpId, code))).code).toBe('OTP_MAX_ATTEMPTS');
    expect((await errorOf(verify(res.otpId, wrong))).code).toBe('OTP_MAX_ATTEMPTS');
  });

  it("when the OTP is unknown, another client's, or of the other mode, then OTP_NOT_FOUND", async () => {
    const res = await send();
    const { code } = await codeFromPhone(res);
    expect((await errorOf(verify('otp_01JUNKNOWN0000000000000000', code))).code).toBe('OTP_NOT_FOUND');
    expect((await errorOf(verify(res.otpId, code, OTHER_CLIENT))).code).toBe('OTP_NOT_FOUND');
    expect((await errorOf(verify(res.otpId, code, CLIENT, 'MODE_TEST'))).code).toBe('OTP_NOT_FOUND');
    expect((await verify(res.otpId, code)).valid).toBe(true);
  });

  it('when the OTP has expired, then OTP_EXPIRED', async () => {
    const res = await send();
    const { code } = await codeFromPhone(res);
    await sys.otpPool.query("UPDATE otps SET expires_at = now() - interval '1 second' WHERE otp_id = $1", [res.otpId]);
    expect((await errorOf(verify(res.otpId, code))).code).toBe('OTP_EXPIRED');
  });

  it('when a test key asks, then the code is the documented fixed one of the requested length', async () => {
    for (const [length, expected] of [
      [4, '1234'],
      [6, '123456'],
      [8, '12345678'],
    ] as const) {
      const res = await send({ mode: 'MODE_TEST', length });
      const phone = await codeFromPhone(res, 'MODE_TEST');
      expect(phone.messageId).toBe(res.messageId);
      expect(phone.code).toBe(expected);
      expect((await verify(res.otpId, expected, CLIENT, 'MODE_TEST')).valid).toBe(true);
    }
  });

  it('when 20 verifies of the right code run at once, then exactly one is valid and the others see it verified', async () => {
    const res = await send();
    const { code } = await codeFromPhone(res);
    const outcomes = await Promise.allSettled(Array.from({ length: 20 }, () => verify(res.otpId, code)));
    const valid = outcomes.filter((o) => o.status === 'fulfilled' && o.value.valid);
    const refused = outcomes.filter((o) => o.status === 'rejected').map((o) => (o.reason as AppError).code);
    expect(valid).toHaveLength(1);
    expect(refused).toEqual(Array(19).fill('OTP_ALREADY_VERIFIED'));
  });

  it('when 20 wrong codes run at once, then at most 3 count, and the right code afterwards is refused', async () => {
    const res = await send({ length: 8 });
    const { code } = await codeFromPhone(res);
    const wrong = String((Number(code) + 1) % 100_000_000).padStart(8, '0');
    const outcomes = await Promise.allSettled(Array.from({ length: 20 }, () => verify(res.otpId, wrong)));
    const answered = outcomes
      .filter((o) => o.status === 'fulfilled')
      .map((o) => (o as PromiseFulfilledResult<{ attemptsRemaining: number }>).value.attemptsRemaining);
    expect(answered.sort()).toEqual([0, 1, 2]);
    const refused = outcomes.filter((o) => o.status === 'rejected').map((o) => (o.reason as AppError).code);
    expect(refused).toEqual(Array(17).fill('OTP_MAX_ATTEMPTS'));
    const { rows } = await sys.otpPool.query<{ attempts: number }>('SELECT attempts FROM otps WHERE otp_id = $1', [res.otpId]);
    expect(rows[0]!.attempts).toBe(3);
    expect((await errorOf(verify(res.otpId, code))).code).toBe('OTP_MAX_ATTEMPTS');
  });

  it('when 12 OTPs for one number are asked of two replicas at once, then exactly 10 are sent, the rest OTP_RATE_LIMITED with a retry delay, and another number is still served', async () => {
    const replica = await sys.addReplica();
    const to = number();
    const outcomes = await Promise.allSettled(Array.from({ length: 12 }, (_, i) => send({ to }, i % 2 === 0 ? sys.otp : replica)));
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(10);
    const refused = outcomes.filter((o) => o.status === 'rejected').map((o) => o.reason as AppError);
    expect(refused.map((e) => e.code)).toEqual(['OTP_RATE_LIMITED', 'OTP_RATE_LIMITED']);
    expect(refused[0]!.retryAfterSeconds).toBeGreaterThan(3500);
    expect((await send()).status).toBe('queued');
    expect((await send({ to, clientId: OTHER_CLIENT })).status).toBe('queued');
    const keys = await sys.redis.keys('*');
    expect(keys.join(' ')).not.toContain(to.slice(1));
  });

  it('when the SMS cannot be queued, then the OTP is forgotten and does not count against the number', async () => {
    const to = number();
    // No device: the message service refuses the SMS.
    for (let i = 0; i < 11; i++) expect((await errorOf(send({ to, deviceId: ' ', metadataJson: '[1]' }))).code).toBe('METADATA_TOO_LARGE');
    expect((await send({ to })).status).toBe('queued');
  });
});
