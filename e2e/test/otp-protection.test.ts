import { startMailCatcher, type MailCatcher } from '@smsgw/stack';
import type { ApiResponse } from './support/http';
import { Receiver } from './support/receiver';
import { TestSystem, type DemoClient, type DemoDevice } from './support/system';

/**
 * Issue 39 through the public API, the operator tool, the stack's mail catcher and a webhook
 * receiver: destinations, the pumping guard, the end-user key and the conversion statistics.
 * Test keys: their OTPs go through the simulated device with the code 123456, and the guard
 * counts them apart from live ones (its holds, events and e-mails say "test").
 */
describe('OTP protections and conversion, end to end', () => {
  let system: TestSystem;
  let mail: MailCatcher;
  let receiver: Receiver;

  beforeAll(async () => {
    mail = await startMailCatcher();
    system = await TestSystem.start({ SMTP_URL: mail.url, TEST_MODE_SENT_DELAY_MS: '50', TEST_MODE_DELIVERY_DELAY_MS: '50' });
    receiver = await Receiver.start(system.stack.certs);
  });

  afterAll(async () => {
    await receiver?.stop();
    await system?.stop();
    await mail?.stop();
  });

  async function clientWithDevice(): Promise<{ client: DemoClient; device: DemoDevice }> {
    const client = await system.createClient();
    return { client, device: await system.createDevice(client.client_id) };
  }

  const otp = (c: { client: DemoClient; device: DemoDevice }, body: Record<string, unknown>, mode: 'live' | 'test' = 'test') =>
    system.api('/v1/sms/send-otp', c.client, { headers: { 'X-Device-ID': c.device.device_id }, body }, mode);
  const verify = (client: DemoClient, otpId: unknown, code: string) =>
    system.api('/v1/sms/verify-otp', client, { body: { otp_id: otpId, code } }, 'test');
  const errorOf = (res: ApiResponse) => [res.status, (res.body.error as { code: string } | undefined)?.code];

  it('when the client allows OTPs to France only, then an OTP to Belgium is 403 DESTINATION_NOT_ALLOWED and one to a premium-rate number 400 NUMBER_TYPE_NOT_ALLOWED; France works, and sends follow their own list', async () => {
    const c = await clientWithDevice();
    const set = await system.cli('set-destinations', '--client', c.client.client_id, '--otp-countries', 'FR', '--sms-countries', 'FR,BE');
    expect(set).toEqual({ client_id: c.client.client_id, sms_countries: ['BE', 'FR'], otp_countries: ['FR'], otp_number_types: [] });
    // The gateway keeps a verified key 5 s at most: the new lists apply within that.
    await new Promise((r) => setTimeout(r, 5500));

    const belgium = await otp(c, { to: '+32470123456' });
    expect(errorOf(belgium)).toEqual([403, 'DESTINATION_NOT_ALLOWED']);
    expect(belgium.body.error).toMatchObject({
      message: "Ce pays de destination (BE) n'est pas autorisé pour ce compte.",
      details: [expect.objectContaining({ field: 'to', country: 'BE' })],
    });
    const premium = await otp(c, { to: '+33899123456' });
    expect(errorOf(premium)).toEqual([400, 'NUMBER_TYPE_NOT_ALLOWED']);
    expect(premium.body.error).toMatchObject({ details: [expect.objectContaining({ field: 'to', number_type: 'PREMIUM_RATE' })] });
    expect(errorOf(await otp(c, { to: '+33612000001' }))).toEqual([200, undefined]);

    // Ordinary sends follow their own list: Belgium is in it, the United States is not (a batch is refused whole).
    const send = (body: Record<string, unknown>, path = '/v1/sms/send') =>
      system.api(path, c.client, { headers: { 'X-Device-ID': c.device.device_id }, body }, 'test');
    expect(errorOf(await send({ to: '+32470123456', message: 'Bonjour' }))).toEqual([200, undefined]);
    const bulk = await send({ recipients: ['+33612000002', '+14155550100'], message: 'Bonjour' }, '/v1/sms/send-bulk');
    expect(errorOf(bulk)).toEqual([403, 'DESTINATION_NOT_ALLOWED']);
    expect((bulk.body.error as { details: unknown[] }).details).toEqual([
      expect.objectContaining({ field: 'recipients[1]', country: 'US' }),
    ]);

    // Allowed again (every country, premium rate too): the same requests go.
    await system.cli('set-destinations', '--client', c.client.client_id, '--otp-countries', 'all', '--otp-number-types', 'PREMIUM_RATE');
    await new Promise((r) => setTimeout(r, 5500));
    expect(errorOf(await otp(c, { to: '+32470123456' }))).toEqual([200, undefined]);
    expect(errorOf(await otp(c, { to: '+33899123456' }))).toEqual([200, undefined]);
  }, 60_000);

  it('when a burst of OTPs to one prefix is never verified, then the guard holds it: later ones are refused, the owner gets an e-mail and the subscribed endpoint the event; another prefix keeps working', async () => {
    const c = await clientWithDevice();
    const hooks = `/${c.client.client_id}`;
    await system.cli(
      'create-webhook',
      '--client',
      c.client.client_id,
      '--url',
      receiver.url(`${hooks}/fraud`),
      '--events',
      'otp.fraud_suspected',
      '--test',
    );
    // An endpoint that took every kind of the specification does not get the opt-in kind.
    const everySpecKind = 'sms.sent,sms.delivered,sms.failed,sms.received,device.connected,device.disconnected';
    await system.cli(
      'create-webhook',
      '--client',
      c.client.client_id,
      '--url',
      receiver.url(`${hooks}/all`),
      '--events',
      everySpecKind,
      '--test',
    );

    // The default thresholds: 20 codes to one prefix in the hour, fewer than 20 % verified.
    for (let i = 0; i < 20; i++) {
      const res = await otp(c, { to: `+3361777${String(1000 + i)}` });
      expect(errorOf(res)).toEqual([200, undefined]);
    }
    const held = await otp(c, { to: '+33617779999' });
    expect(errorOf(held)).toEqual([429, 'OTP_FRAUD_SUSPECTED']);
    expect(Number(held.headers['retry-after'])).toBeGreaterThan(3500);
    expect(errorOf(await otp(c, { to: '+33617770001' }))).toEqual([429, 'OTP_FRAUD_SUSPECTED']);
    // Another prefix of the same client still gets its code, and verifies.
    const other = await otp(c, { to: '+33698761234' });
    expect(errorOf(other)).toEqual([200, undefined]);
    expect((await verify(c.client, other.body.otp_id, '123456')).body).toMatchObject({ valid: true });

    const [event] = await receiver.waitFor(`${hooks}/fraud`, 1, 20_000);
    expect(event!.body).toMatchObject({
      event: 'otp.fraud_suspected',
      event_id: expect.stringMatching(/^evt_/),
      data: { scope: 'prefix', prefix: '+3361777', country: 'FR', requests: 20, verified: 0, conversion_rate: 0, window_seconds: 3600 },
    });
    const alert = await mail.waitFor((m) => m.raw.includes(String(event!.body.event_id)), 20_000);
    expect(alert.subject).toBe('SMS pumping suspected: one-time passwords to +3361777 are held [test mode]');
    expect(alert.raw.replace(/=\r?\n/g, '')).toContain('to numbers starting with +3361777 (FR)');
    await new Promise((r) => setTimeout(r, 1000));
    expect(receiver.at(`${hooks}/fraud`)).toHaveLength(1);
    expect(receiver.at(`${hooks}/all`).filter((h) => h.body.event === 'otp.fraud_suspected')).toEqual([]);

    // The owner releases it (here with the operator tool; the dashboard's button does the same): codes go again.
    const holds = (await system.cli('list-otp-holds', '--client', c.client.client_id)) as unknown as { hold_id: string; active: boolean }[];
    expect(holds).toEqual([expect.objectContaining({ hold_id: event!.body.data.hold_id, active: true, prefix: '+3361777' })]);
    const released = await system.cli('release-otp-hold', '--client', c.client.client_id, '--hold', holds[0]!.hold_id);
    expect(released).toMatchObject({ active: false, released_at: expect.any(String) });
    expect(errorOf(await otp(c, { to: '+33617779999' }))).toEqual([200, undefined]);
  }, 90_000);

  it('when one end-user key asks for a sixth code within its window, then it is refused with OTP_RATE_LIMITED naming end_user_key, while another key still gets one', async () => {
    const c = await clientWithDevice();
    for (let i = 0; i < 5; i++) {
      const res = await otp(c, { to: `+336${String(20_000_000 + i * 100_000)}`, end_user_key: '198.51.100.23' });
      expect(errorOf(res)).toEqual([200, undefined]);
    }
    const sixth = await otp(c, { to: '+33629999999', end_user_key: '198.51.100.23' });
    expect(errorOf(sixth)).toEqual([429, 'OTP_RATE_LIMITED']);
    expect(sixth.body.error).toMatchObject({ details: [expect.objectContaining({ field: 'end_user_key' })] });
    expect(Number(sixth.headers['retry-after'])).toBeGreaterThan(0);
    expect(errorOf(await otp(c, { to: '+33629999999', end_user_key: 'user-7' }))).toEqual([200, undefined]);
  });

  it('when codes are sent, verified, tried wrong and left to expire, then GET /v1/otp/stats counts each exactly, by day and by country, with the filters of /v1/sms/stats', async () => {
    const c = await clientWithDevice();
    const sent: ApiResponse[] = [];
    for (const to of ['+33612300001', '+33612300002', '+33612300003', '+32470123400']) sent.push(await otp(c, { to, expiry: 30 }));
    expect(sent.map((r) => r.status)).toEqual([200, 200, 200, 200]);
    expect((await verify(c.client, sent[0]!.body.otp_id, '123456')).body).toMatchObject({ valid: true });
    expect((await verify(c.client, sent[3]!.body.otp_id, '000000')).body).toMatchObject({ valid: false, attempts_remaining: 2 });
    expect((await verify(c.client, sent[3]!.body.otp_id, '123456')).body).toMatchObject({ valid: true });
    expect((await verify(c.client, sent[1]!.body.otp_id, '999999')).body).toMatchObject({ valid: false });
    // The other two are never verified and expire.
    await new Promise((r) => setTimeout(r, 31_000));

    const today = new Date().toISOString().slice(0, 10);
    const stats = await system.api('/v1/otp/stats', c.client, {}, 'test');
    expect(stats.status).toBe(200);
    expect(stats.body).toEqual({
      success: true,
      period: { from: expect.any(String), to: expect.any(String) },
      stats: {
        sent: 4,
        verified: 2,
        expired: 2,
        failed_attempts: 2,
        conversion_rate: 50,
        by_day: [{ date: today, sent: 4, verified: 2 }],
        by_country: [
          { country: 'FR', sent: 3, verified: 1 },
          { country: 'BE', sent: 1, verified: 1 },
        ],
      },
    });
    // Live data is apart; the filters of /v1/sms/stats apply.
    expect((await system.api('/v1/otp/stats', c.client)).body).toMatchObject({
      stats: { sent: 0, verified: 0, by_day: [], by_country: [] },
    });
    const byDevice = await system.api(
      `/v1/otp/stats?from_date=${today}&to_date=${today}&device_id=${c.device.device_id}`,
      c.client,
      {},
      'test',
    );
    expect(byDevice.body).toMatchObject({ period: { from: `${today}T00:00:00.000Z`, to: `${today}T23:59:59.999Z` }, stats: { sent: 4 } });
    const badDate = await system.api('/v1/otp/stats?from_date=yesterday', c.client, {}, 'test');
    expect(errorOf(badDate)).toEqual([400, 'INVALID_DATE']);
  }, 60_000);
});
