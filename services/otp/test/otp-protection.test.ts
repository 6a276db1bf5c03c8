import type { Subscription } from '@nats-io/transport-node';
import { AppError, type PublicEvent } from '@smsgw/platform';
import { eventually, thrownBy } from '@smsgw/testing';
import { OtpRepository } from '../src/data/otp.repository';
import { startOtpSystem, type OtpSystem } from './support/system';

const DEVICE = 'device_01JOTPGUARDDEVICE0000000';

/**
 * The pumping guard, the end-user key and the statistics through the otp service's gRPC methods,
 * with the real message service, Postgres, Redis and NATS. Test keys: their codes are 123456, and
 * the guard counts them apart from live ones.
 */
describe('the OTP protections and statistics, over gRPC with real servers', () => {
  let sys: OtpSystem;
  let events: PublicEvent[];
  let subscription: Subscription;
  let clients = 0;
  // A client of its own per test: its own windows, settings and statistics.
  const newClient = () => `client_17000000000000${String(100 + clients++)}`;

  beforeAll(async () => {
    sys = await startOtpSystem({ OTP_GUARD_ENABLED: 'true' });
    events = [];
    subscription = sys.nats.nc.subscribe(sys.nats.names.event('otp.fraud_suspected'));
    void (async () => {
      for await (const m of subscription) events.push(JSON.parse(new TextDecoder().decode(m.data)) as PublicEvent);
    })();
  });
  afterAll(async () => {
    subscription?.unsubscribe();
    await sys?.stop();
  });

  const send = (clientId: string, to: string, extra: { endUserKey?: string; mode?: 'MODE_LIVE' | 'MODE_TEST' } = {}) =>
    sys.otp.sendOtp({
      clientId,
      mode: extra.mode ?? 'MODE_TEST',
      deviceId: DEVICE,
      to,
      length: 0,
      expirySeconds: 0,
      template: '',
      metadataJson: '',
      endUserKey: extra.endUserKey ?? '',
    });
  const verify = (clientId: string, otpId: string, code = '123456') => sys.otp.verifyOtp({ clientId, mode: 'MODE_TEST', otpId, code });
  const strict = (clientId: string, change: Record<string, number | boolean> = {}) =>
    sys.anyCaller.setGuardSettings({
      clientId,
      enabled: true,
      windowSeconds: 3600,
      prefixMinRequests: 5,
      prefixMinConversion: 50,
      countryMinRequests: 1000,
      countryMinConversion: 10,
      endUserLimit: 5,
      endUserWindowSeconds: 3600,
      ...change,
    });

  it('when a client never set its guard, then it reads the operator defaults; once set, its own values, checked', async () => {
    const client = newClient();
    expect(await sys.anyCaller.getGuardSettings({ clientId: client })).toMatchObject({
      enabled: true,
      windowSeconds: 3600,
      prefixMinRequests: 20,
      prefixMinConversion: 20,
      countryMinRequests: 200,
      countryMinConversion: 10,
      endUserLimit: 5,
      endUserWindowSeconds: 3600,
      defaults: true,
    });
    expect(await strict(client)).toMatchObject({ prefixMinRequests: 5, defaults: false });
    const err = await thrownBy(strict(client, { windowSeconds: 10 }));
    expect((err as AppError).code).toBe('VALIDATION_ERROR');
    expect((err as AppError).details).toEqual([expect.objectContaining({ field: 'window_seconds' })]);
  });

  it('when a prefix asks for codes it never verifies, then the guard holds it: later codes there are refused, another prefix works, the event goes out once, and the release reopens it', async () => {
    const client = newClient();
    await strict(client);
    for (let i = 0; i < 5; i++) await send(client, `+3361234${String(1000 + i)}`);
    const refusedCall = await thrownBy(send(client, '+33612349999'));
    expect(refusedCall).toBeInstanceOf(AppError);
    expect((refusedCall as AppError).code).toBe('OTP_FRAUD_SUSPECTED');
    expect((refusedCall as AppError).retryAfterSeconds).toBeGreaterThan(3500);
    // Another prefix of the same client, and the same prefix of another client, still get codes.
    await send(client, '+33698761000');
    await send(newClient(), '+33612348888');

    const event = await eventually(async () => events.find((e) => e.routing.client_id === client), 10_000, 'the event');
    expect(event).toEqual({
      event: 'otp.fraud_suspected',
      event_id: expect.stringMatching(/^evt_/),
      timestamp: expect.any(String),
      data: {
        hold_id: expect.stringMatching(/^hold_/),
        scope: 'prefix',
        prefix: '+3361234',
        country: 'FR',
        requests: 5,
        verified: 0,
        conversion_rate: 0,
        window_seconds: 3600,
        held_at: expect.any(String),
        held_until: expect.any(String),
      },
      routing: { client_id: client, mode: 'test' },
    });
    // Still held: refused again, and no second event.
    await expect(send(client, '+33612340001')).rejects.toMatchObject({ code: 'OTP_FRAUD_SUSPECTED' });
    expect(events.filter((e) => e.routing.client_id === client)).toHaveLength(1);
    // Live codes are counted apart: the same prefix in live mode is not held.
    await send(client, '+33612340002', { mode: 'MODE_LIVE' });

    const { holds } = await sys.anyCaller.listHolds({ clientId: client, mode: 'MODE_UNSPECIFIED' });
    expect(holds).toEqual([
      expect.objectContaining({
        holdId: event.data.hold_id,
        scope: 'prefix',
        prefix: '+3361234',
        country: 'FR',
        active: true,
        mode: 'MODE_TEST',
      }),
    ]);
    const released = await sys.anyCaller.releaseHold({ clientId: client, holdId: String(event.data.hold_id) });
    expect(released).toMatchObject({ active: false, releasedAt: expect.any(String) });
    await send(client, '+33612340003');
    // Another client cannot see or release it.
    expect(await sys.anyCaller.listHolds({ clientId: newClient(), mode: 'MODE_UNSPECIFIED' })).toEqual({ holds: [] });
    await expect(sys.anyCaller.releaseHold({ clientId: newClient(), holdId: String(event.data.hold_id) })).rejects.toMatchObject({
      code: 'OTP_NOT_FOUND',
    });
  });

  it('when the codes of a prefix are verified, then it stays open however many are asked', async () => {
    const client = newClient();
    await strict(client);
    for (let i = 0; i < 8; i++) {
      const sent = await send(client, `+3361555${String(1000 + i)}`);
      expect((await verify(client, sent.otpId)).valid).toBe(true);
    }
    await send(client, '+33615559999');
    expect(events.filter((e) => e.routing.client_id === client)).toHaveLength(0);
  });

  it('when one end-user key asks for a sixth code within its window, then it is refused with OTP_RATE_LIMITED on end_user_key; another key and no key still work', async () => {
    const client = newClient();
    for (let i = 0; i < 5; i++) await send(client, `+3362${String(1_000_000 + i * 10_000)}0`.slice(0, 12), { endUserKey: '203.0.113.7' });
    const err = await thrownBy(send(client, '+33612876543', { endUserKey: '203.0.113.7' }));
    expect(err).toMatchObject({ code: 'OTP_RATE_LIMITED', details: [expect.objectContaining({ field: 'end_user_key' })] });
    expect((err as AppError).message).toMatch(/end_user_key/);
    await send(client, '+33612876543', { endUserKey: 'account-42' });
    await send(client, '+33612876544');
    // The key never reaches Redis in clear.
    const keys = await sys.redis.keys('*otp-user*');
    expect(keys.length).toBeGreaterThan(0);
    expect(keys.join(' ')).not.toContain('203.0.113.7');
  });

  it('when codes are sent, verified, tried wrong and expire, then the statistics count each exactly, by day and by country', async () => {
    const client = newClient();
    const fr = await Promise.all([send(client, '+33612000101'), send(client, '+33612000102'), send(client, '+33612000103')]);
    const be = await send(client, '+32470123456');
    await verify(client, fr[0].otpId);
    await verify(client, fr[1].otpId, '000000');
    await verify(client, fr[1].otpId, '000001');
    // One OTP past its expiry, never verified.
    await sys.otpPool.query("UPDATE otps SET expires_at = now() - interval '1 second' WHERE otp_id = $1", [be.otpId]);
    const stats = await sys.anyCaller.getOtpStats({ clientId: client, mode: 'MODE_TEST', fromDate: '', toDate: '', deviceId: '' });
    const today = new Date().toISOString().slice(0, 10);
    expect(stats).toMatchObject({
      sent: 4,
      verified: 1,
      expired: 1,
      failedAttempts: 2,
      conversionRate: 25,
      byDay: [{ date: today, sent: 4, verified: 1 }],
      byCountry: [
        { country: 'FR', sent: 3, verified: 1 },
        { country: 'BE', sent: 1, verified: 0 },
      ],
    });
    // Live codes are not test ones; a device filter keeps only that device's.
    const live = await sys.anyCaller.getOtpStats({ clientId: client, mode: 'MODE_LIVE', fromDate: '', toDate: '', deviceId: '' });
    expect(live).toMatchObject({ sent: 0, verified: 0, conversionRate: 0, byDay: [], byCountry: [] });
    const other = await sys.anyCaller.getOtpStats({
      clientId: client,
      mode: 'MODE_TEST',
      fromDate: '',
      toDate: '',
      deviceId: 'device_other',
    });
    expect(other.sent).toBe(0);

    // Purged OTPs live on in the daily rollups: the figures do not change.
    await sys.otpPool.query("UPDATE otps SET expires_at = now() - interval '30 hours' WHERE client_id = $1", [client]);
    const before = await sys.anyCaller.getOtpStats({ clientId: client, mode: 'MODE_TEST', fromDate: '', toDate: '', deviceId: '' });
    expect(before).toMatchObject({ sent: 4, verified: 1, expired: 3, failedAttempts: 2 });
    expect(await new OtpRepository(sys.otpPool).purgeExpired(24)).toBeGreaterThanOrEqual(4);
    const left = await sys.otpPool.query<{ n: number }>('SELECT count(*)::int AS n FROM otps WHERE client_id = $1', [client]);
    expect(left.rows[0]!.n).toBe(0);
    const after = await sys.anyCaller.getOtpStats({ clientId: client, mode: 'MODE_TEST', fromDate: '', toDate: '', deviceId: '' });
    expect(after).toEqual(before);
    const byDevice = await sys.anyCaller.getOtpStats({
      clientId: client,
      mode: 'MODE_TEST',
      fromDate: today,
      toDate: today,
      deviceId: DEVICE,
    });
    expect(byDevice).toMatchObject({ sent: 4, verified: 1 });
  });

  it('when a bound of the period is not a date, then INVALID_DATE', async () => {
    const err = await thrownBy(
      sys.anyCaller.getOtpStats({ clientId: newClient(), mode: 'MODE_TEST', fromDate: 'yesterday', toDate: '', deviceId: '' }),
    );
    expect(err).toMatchObject({ code: 'INVALID_DATE' });
  });
});
