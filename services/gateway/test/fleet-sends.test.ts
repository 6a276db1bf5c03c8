import { presenceKey } from '@smsgw/platform';
import { apiKey, FleetGateway, T0 } from './support/fleet-gateway';

const A = 'device_A';
const B = 'device_B';
const IN_AN_HOUR = new Date(Math.ceil(Date.now() / 1000) * 1000 + 3600_000).toISOString();
const plusSeconds = (iso: string, seconds: number) => new Date(Date.parse(iso) + seconds * 1000).toISOString();

/** ttl and failover on the sending endpoints, through the gateway's real app on real Redis. */
describe('ttl and failover on the sends', () => {
  const gw = new FleetGateway();

  beforeAll(async () => {
    await gw.start();
    gw.devices = [
      { deviceId: A, status: 'online', hasRoom: true },
      { deviceId: B, status: 'online', hasRoom: true },
    ];
    await gw.redis.set(presenceKey(A), 'online');
    await gw.redis.set(presenceKey(B), 'online');
  });

  afterAll(() => gw.stop());

  /** A live key whose client has this default ttl. */
  const keyWithDefault = (seconds: number) => {
    const key = apiKey();
    gw.defaultTtl.set(key, seconds);
    return key;
  };
  const send = (key: string, body: Record<string, unknown>, headers: Record<string, string> = {}) =>
    gw.call('POST', '/v1/sms/send', { key, body: { to: '+33612345678', message: 'Bonjour', ...body }, headers });

  describe('validation', () => {
    it.each([59, 604_801, '60', 1.5, 0, -60, true])(
      'when ttl is %p, then 400 VALIDATION_ERROR names the field with a French sentence, and nothing is sent',
      async (ttl) => {
        const before = gw.sends.length;
        const res = await send(apiKey(), { ttl });
        expect(res.status).toBe(400);
        const sentence = 'Le champ ttl doit être un nombre entier de secondes compris entre 60 et 604800.';
        expect(res.body).toEqual({
          success: false,
          error: { code: 'VALIDATION_ERROR', message: sentence, details: [{ field: 'ttl', code: 'VALIDATION_ERROR', message: sentence }] },
        });
        expect(gw.sends.length).toBe(before);
      },
    );

    it('when ttl is bad on send-bulk, or on one message of send-bulk-personalized, then the field named is ttl or messages[i].ttl', async () => {
      const bulk = await gw.call('POST', '/v1/sms/send-bulk', {
        key: apiKey(),
        body: { recipients: ['+33612345678'], message: 'x', ttl: 59 },
      });
      expect(bulk.status).toBe(400);
      expect(bulk.body.error?.details).toEqual([expect.objectContaining({ field: 'ttl' })]);
      const personalized = await gw.call('POST', '/v1/sms/send-bulk-personalized', {
        key: apiKey(),
        body: {
          messages: [
            { to: '+33612345678', message: 'a', ttl: 60 },
            { to: '+33698765432', message: 'b', ttl: '60' },
          ],
        },
      });
      expect(personalized.status).toBe(400);
      expect(personalized.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: [{ field: 'messages[1].ttl' }] });
    });

    it('when failover is not a boolean (send, bulk, OTP), then 400 VALIDATION_ERROR names failover; with another bad field, both are listed', async () => {
      for (const [path, body] of [
        ['/v1/sms/send', { to: '+33612345678', message: 'x', failover: 'true' }],
        ['/v1/sms/send-bulk', { recipients: ['+33612345678'], message: 'x', failover: 1 }],
        ['/v1/sms/send-otp', { to: '+33612345678', failover: 'yes' }],
      ] as const) {
        const res = await gw.call('POST', path, { key: apiKey(), body });
        expect({ path, status: res.status, error: res.body.error }).toEqual({
          path,
          status: 400,
          error: {
            code: 'VALIDATION_ERROR',
            message: 'Le champ failover doit être un booléen (true ou false).',
            details: [{ field: 'failover', code: 'VALIDATION_ERROR', message: 'Le champ failover doit être un booléen (true ou false).' }],
          },
        });
      }
      const both = await send(apiKey(), { ttl: 10, priority: 9 });
      expect(both.body.error).toMatchObject({ code: 'VALIDATION_ERROR', message: 'Plusieurs champs de la requête sont invalides.' });
      expect(both.body.error?.details?.map((d) => d.field)).toEqual(['priority', 'ttl']);
    });
  });

  describe('the ttl passed to the message service', () => {
    it("when a send gives no ttl, then the client's default is passed and expires_at is queued_at plus it", async () => {
      const res = await send(keyWithDefault(900), {});
      expect(res.status).toBe(200);
      expect(gw.sends.at(-1)).toMatchObject({ ttlSeconds: 900 });
      expect(res.body.expires_at).toBe(plusSeconds(T0, 900));
    });

    it("when a send gives a ttl, then it wins over the client's default", async () => {
      const res = await send(keyWithDefault(900), { ttl: 120 });
      expect(gw.sends.at(-1)).toMatchObject({ ttlSeconds: 120 });
      expect(res.body.expires_at).toBe(plusSeconds(T0, 120));
    });

    it('when neither the send nor the client gives a ttl, then 0 is passed and expires_at is null', async () => {
      const res = await send(keyWithDefault(0), { ttl: null });
      expect(gw.sends.at(-1)).toMatchObject({ ttlSeconds: 0 });
      expect(res.body).toMatchObject({ success: true, expires_at: null });
    });

    it('when a scheduled send has a ttl, then it expires that long after scheduled_at', async () => {
      const res = await send(keyWithDefault(0), { ttl: 604_800, scheduled_at: IN_AN_HOUR });
      expect(res.status).toBe(200);
      expect(res.body.expires_at).toBe(plusSeconds(IN_AN_HOUR, 604_800));
    });

    it("when a bulk send gives a ttl, then every message gets it; without one, every message gets the client's default", async () => {
      const key = keyWithDefault(300);
      const recipients = ['+33612345678', '+33698765432'];
      await gw.call('POST', '/v1/sms/send-bulk', { key, body: { recipients, message: 'x', ttl: 3600 } });
      expect(gw.batches.at(-1)?.ttlSeconds).toEqual([3600, 3600]);
      const res = await gw.call('POST', '/v1/sms/send-bulk', { key, body: { recipients, message: 'x' } });
      expect(gw.batches.at(-1)?.ttlSeconds).toEqual([300, 300]);
      expect(res.body.messages).toEqual([expect.objectContaining({ expires_at: T0 }), expect.objectContaining({ expires_at: T0 })]);
    });

    it("when personalised messages give their own ttl, then each keeps it; the others take the request's ttl, else the client's default", async () => {
      const key = keyWithDefault(300);
      const messages = [
        { to: '+33612345678', message: 'a', ttl: 60 },
        { to: '+33698765432', message: 'b' },
      ];
      await gw.call('POST', '/v1/sms/send-bulk-personalized', { key, body: { messages, ttl: 7200 } });
      expect(gw.batches.at(-1)?.ttlSeconds).toEqual([60, 7200]);
      await gw.call('POST', '/v1/sms/send-bulk-personalized', { key, body: { messages } });
      expect(gw.batches.at(-1)?.ttlSeconds).toEqual([60, 300]);
    });

    it('when a send is made again with its Idempotency-Key but another ttl or failover, then 422 IDEMPOTENCY_KEY_REUSED', async () => {
      const key = apiKey();
      const headers = { 'idempotency-key': `k-${Date.now()}` };
      expect((await send(key, { ttl: 600 }, headers)).status).toBe(200);
      expect((await send(key, { ttl: 601 }, headers)).body.error?.code).toBe('IDEMPOTENCY_KEY_REUSED');
      expect((await send(key, { ttl: 600, failover: true }, headers)).body.error?.code).toBe('IDEMPOTENCY_KEY_REUSED');
    });
  });

  describe('pinned or free to move', () => {
    it.each([
      ['X-Device-ID and no failover', true, { 'x-device-id': A }, {}],
      ['X-Device-ID and failover false', true, { 'x-device-id': A }, { failover: false }],
      ['X-Device-ID and failover true', false, { 'x-device-id': A }, { failover: true }],
      ['no X-Device-ID', false, {}, {}],
      ['no X-Device-ID and failover false', false, {}, { failover: false }],
    ])('when a send has %s, then pinned is %p', async (_what, pinned, headers, body) => {
      const res = await send(apiKey(), body, headers);
      expect(res.status).toBe(200);
      expect(gw.sends.at(-1)).toMatchObject({ pinned });
    });

    it('when a bulk or personalised send names a device, then its messages are pinned unless failover is true', async () => {
      const key = apiKey();
      const bulk = { recipients: ['+33612345678', '+33698765432'], message: 'x' };
      await gw.call('POST', '/v1/sms/send-bulk', { key, body: bulk, headers: { 'x-device-id': B } });
      expect(gw.batches.at(-1)).toMatchObject({ pinned: true, deviceIds: [B, B] });
      await gw.call('POST', '/v1/sms/send-bulk', { key, body: { ...bulk, failover: true }, headers: { 'x-device-id': B } });
      expect(gw.batches.at(-1)).toMatchObject({ pinned: false, deviceIds: [B, B] });
      await gw.call('POST', '/v1/sms/send-bulk', { key, body: bulk });
      expect(gw.batches.at(-1)).toMatchObject({ pinned: false });
      const personalized = { messages: [{ to: '+33612345678', message: 'a' }] };
      await gw.call('POST', '/v1/sms/send-bulk-personalized', { key, body: personalized, headers: { 'x-device-id': A } });
      expect(gw.batches.at(-1)).toMatchObject({ pinned: true, deviceIds: [A] });
    });

    it('when send-otp names a device, then its SMS is pinned unless failover is true; without a device it is not', async () => {
      const key = apiKey();
      const otp = (body: Record<string, unknown>, headers: Record<string, string> = {}) =>
        gw.call('POST', '/v1/sms/send-otp', { key, body: { to: '+33612345678', ...body }, headers });
      expect((await otp({}, { 'x-device-id': A })).status).toBe(200);
      expect(gw.otps.at(-1)).toMatchObject({ deviceId: A, pinned: true });
      await otp({ failover: true }, { 'x-device-id': A });
      expect(gw.otps.at(-1)).toMatchObject({ deviceId: A, pinned: false });
      await otp({});
      expect(gw.otps.at(-1)).toMatchObject({ pinned: false });
    });
  });
});
