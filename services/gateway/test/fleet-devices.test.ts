import { FAILURE_CODES, presenceKey, removedDeviceKey } from '@smsgw/platform';
import { escapePointer, OpenApi } from '@smsgw/testing';
import { openApiDocument } from '../src/openapi';
import type { OpenApiDocument } from '@smsgw/testing';
import { apiKey, FleetGateway, storedMessage, T0 } from './support/fleet-gateway';

const T1 = '2030-01-15T10:01:05.000Z';
const T2 = '2030-01-15T10:02:09.000Z';
const IN_AN_HOUR = new Date(Date.now() + 3600_000).toISOString();
const api = new OpenApi(openApiDocument as unknown as OpenApiDocument);
const bodySchemaAt = (method: string, template: string) =>
  api.validatorAt(`#/paths/${escapePointer(template)}/${method}/responses/200/content/application~1json/schema`);

describe('devices on the send path: removed phones, the automatic choice', () => {
  const gw = new FleetGateway();

  beforeAll(() => gw.start());
  afterAll(() => gw.stop());

  const online = async (...ids: string[]) => Promise.all(ids.map((id) => gw.redis.set(presenceKey(id), 'online')));
  const send = (key: string, headers: Record<string, string> = {}, body: Record<string, unknown> = {}) =>
    gw.call('POST', '/v1/sms/send', { key, body: { to: '+33612345678', message: 'Bonjour', ...body }, headers });

  describe('a removed phone', () => {
    it('when the hub marks a device removed in Redis while this replica caches its owner, then every send naming it is 404 INVALID_DEVICE_ID', async () => {
      gw.devices = [{ deviceId: 'device_R', status: 'online', hasRoom: true }];
      await online('device_R');
      const key = apiKey();
      const named = { 'x-device-id': 'device_R' };
      expect((await send(key, named)).status).toBe(200);
      expect((await send(key, named)).status).toBe(200);
      expect(gw.getDeviceCalls.filter((d) => d === 'device_R')).toHaveLength(1); // the owner came from the cache

      await gw.redis.set(removedDeviceKey('device_R'), '1');
      const sent = gw.sends.length + gw.batches.length + gw.otps.length;
      const refusals = [
        await send(key, named),
        await send(key, named, { scheduled_at: IN_AN_HOUR }),
        await gw.call('POST', '/v1/sms/send-bulk', { key, headers: named, body: { recipients: ['+33612345678'], message: 'x' } }),
        await gw.call('POST', '/v1/sms/send-bulk-personalized', {
          key,
          headers: named,
          body: { messages: [{ to: '+33612345678', message: 'x' }] },
        }),
        await gw.call('POST', '/v1/sms/send-otp', { key, headers: named, body: { to: '+33612345678' } }),
        await gw.call('GET', '/v1/auth/test', { key, headers: named }),
        await send(apiKey('test'), named),
      ];
      for (const res of refusals) {
        expect({ status: res.status, code: res.body.error?.code }).toEqual({ status: 404, code: 'INVALID_DEVICE_ID' });
      }
      expect(gw.sends.length + gw.batches.length + gw.otps.length).toBe(sent);
    });

    it('when a removed device was refused, then its owner is no longer served from the cache, even if the mark went away', async () => {
      gw.devices = [{ deviceId: 'device_S', status: 'online', hasRoom: true }];
      await online('device_S');
      const key = apiKey();
      expect((await send(key, { 'x-device-id': 'device_S' })).status).toBe(200);
      await gw.redis.set(removedDeviceKey('device_S'), '1');
      expect((await send(key, { 'x-device-id': 'device_S' })).status).toBe(404);
      await gw.redis.del(removedDeviceKey('device_S'));
      expect((await send(key, { 'x-device-id': 'device_S' })).body.error?.code).toBe('INVALID_DEVICE_ID');
      expect(gw.getDeviceCalls.filter((d) => d === 'device_S')).toHaveLength(1);
    });

    it('when another device of the client is removed, then sends naming this one still work', async () => {
      gw.devices = [
        { deviceId: 'device_T', status: 'online', hasRoom: true },
        { deviceId: 'device_U', status: 'online', hasRoom: true },
      ];
      await online('device_T', 'device_U');
      await gw.redis.set(removedDeviceKey('device_U'), '1');
      expect((await send(apiKey(), { 'x-device-id': 'device_T' })).status).toBe(200);
    });
  });

  describe('the automatic choice', () => {
    it('when some online devices have room, then the one with room and the shortest queue is chosen, even over an emptier one without room', async () => {
      gw.devices = [
        { deviceId: 'device_Full', status: 'online', hasRoom: false },
        { deviceId: 'device_Busy', status: 'online', hasRoom: true },
        { deviceId: 'device_Free', status: 'online', hasRoom: true },
        { deviceId: 'device_Off', status: 'offline', hasRoom: true },
      ];
      gw.depths = { device_Full: 0, device_Busy: 7, device_Free: 3, device_Off: 0 };
      const res = await send(apiKey());
      expect(res.body).toMatchObject({ success: true, device_id: 'device_Free' });
      expect(gw.sends.at(-1)).toMatchObject({ deviceId: 'device_Free', pinned: false });
    });

    it('when no online device has room, then the shortest queue of all online ones is chosen', async () => {
      gw.devices = [
        { deviceId: 'device_Full', status: 'online', hasRoom: false },
        { deviceId: 'device_Night', status: 'online', hasRoom: false },
      ];
      gw.depths = { device_Full: 4, device_Night: 1 };
      expect((await send(apiKey())).body).toMatchObject({ device_id: 'device_Night' });
    });

    it('when a bulk send has no X-Device-ID, then its messages spread over the devices with room only', async () => {
      gw.devices = [
        { deviceId: 'device_Full', status: 'online', hasRoom: false },
        { deviceId: 'device_Busy', status: 'online', hasRoom: true },
        { deviceId: 'device_Free', status: 'online', hasRoom: true },
      ];
      gw.depths = { device_Full: 0, device_Busy: 2, device_Free: 0 };
      const recipients = ['+33612345601', '+33612345602', '+33612345603', '+33612345604'];
      await gw.call('POST', '/v1/sms/send-bulk', { key: apiKey(), body: { recipients, message: 'x' } });
      expect(gw.batches.at(-1)?.deviceIds).toEqual(['device_Free', 'device_Free', 'device_Busy', 'device_Free']);
    });
  });

  describe('status and history', () => {
    const moved = storedMessage({
      deviceId: 'device_B',
      status: 'delivered',
      sentAt: T1,
      deliveredAt: T2,
      expiresAt: '2030-01-15T11:00:00.000Z',
      attempts: [
        {
          deviceId: 'device_A',
          status: 'moved',
          errorCode: 'DEVICE_OFFLINE',
          errorMessage: 'Appareil hors ligne.',
          at: T1,
          sim: 0,
          reconciled: '',
        },
        { deviceId: 'device_B', status: 'delivered', errorCode: '', errorMessage: '', at: T2, sim: 2, reconciled: '' },
      ],
    });
    const attempts = [
      { device_id: 'device_A', status: 'moved', error: { code: 'DEVICE_OFFLINE', message: 'Appareil hors ligne.' }, at: T1, sim: null },
      { device_id: 'device_B', status: 'delivered', error: null, at: T2, sim: 2 },
    ];

    it('when a message moved to another phone, then its status shows the current device, expires_at and every attempt, as documented', async () => {
      gw.message = moved;
      const res = await gw.call('GET', `/v1/sms/status/${moved.messageId}`, { key: apiKey() });
      expect(res.body).toMatchObject({ success: true, device_id: 'device_B', expires_at: '2030-01-15T11:00:00.000Z', attempts });
      expect(res.body).toMatchObject({ sent_at: T1, delivered_at: T2, queued_at: T0 }); // the fields shown before stay
      const conforms = bodySchemaAt('get', '/v1/sms/status/{message_id}');
      expect(conforms(res.body) ? [] : conforms.errors).toEqual([]);
    });

    it("when the document describes an attempt's error, then its codes are the failure codes, DEVICE_OFFLINE (a move), NOT_DELIVERED (an OTP's fallback), SIM_QUARANTINED (a move off quarantined SIMs) and NOT_ON_PHONE (a digest's requeue)", () => {
      type Schema = { properties: Record<string, Schema>; enum?: string[] };
      const attempt = (openApiDocument as { components: { schemas: Record<string, Schema> } }).components.schemas.Attempt!;
      expect(attempt.properties.error!.properties.code!.enum).toEqual([
        ...FAILURE_CODES,
        'DEVICE_OFFLINE',
        'NOT_DELIVERED',
        'SIM_QUARANTINED',
        'NOT_ON_PHONE',
      ]);
    });

    it('when a message has no ttl, then its status and history show expires_at null', async () => {
      gw.message = storedMessage({
        attempts: [{ deviceId: 'device_A', status: 'queued', errorCode: '', errorMessage: '', at: T0, sim: 0, reconciled: '' }],
      });
      const status = await gw.call('GET', `/v1/sms/status/${gw.message.messageId}`, { key: apiKey() });
      expect(status.body).toMatchObject({ device_id: 'device_A', expires_at: null });
      const history = await gw.call('GET', '/v1/sms/history', { key: apiKey() });
      expect(history.body.data).toEqual([
        expect.objectContaining({ expires_at: null, attempts: [expect.objectContaining({ error: null })] }),
      ]);
    });

    it('when the history lists a message that failed on one phone and was sent by another, then it shows both attempts, as documented', async () => {
      gw.message = moved;
      const res = await gw.call('GET', '/v1/sms/history', { key: apiKey() });
      expect(res.body.data).toEqual([
        expect.objectContaining({ message_id: moved.messageId, device_id: 'device_B', expires_at: moved.expiresAt, attempts }),
      ]);
      const conforms = bodySchemaAt('get', '/v1/sms/history');
      expect(conforms(res.body) ? [] : conforms.errors).toEqual([]);
    });
  });
});
