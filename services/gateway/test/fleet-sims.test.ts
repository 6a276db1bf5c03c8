import { presenceKey } from '@smsgw/platform';
import type { devicehub } from '@smsgw/proto';
import { escapePointer, OpenApi, type OpenApiDocument } from '@smsgw/testing';
import { openApiDocument } from '../src/openapi';
import { apiKey, FleetGateway, storedMessage, T0 } from './support/fleet-gateway';

const api = new OpenApi(openApiDocument as unknown as OpenApiDocument);
const bodySchemaAt = (method: string, template: string) =>
  api.validatorAt(`#/paths/${escapePointer(template)}/${method}/responses/200/content/application~1json/schema`);

/** A phone's reported SIMs, slots 1 to n; `full` lists the slots without room. */
const sims = (n: number, full: number[] = []): devicehub.Sim__Output[] =>
  Array.from({ length: n }, (_, i) => ({ slot: i + 1, carrier: `Op ${i + 1}`, number: '', usage: null, hasRoom: !full.includes(i + 1) }));

const HOOK = 'https://hooks.example.com/sms';
const simSentence = 'Le champ sim doit être un numéro de SIM entier compris entre 1 et 8.';

/** sim and replies on the sending endpoints, through the gateway's real app on real Redis. */
describe('sim and replies on the sends', () => {
  const gw = new FleetGateway();

  beforeAll(() => gw.start());
  afterAll(() => gw.stop());

  const online = async (...ids: string[]) => Promise.all(ids.map((id) => gw.redis.set(presenceKey(id), 'online')));
  const fleet = async (devices: Partial<devicehub.Device__Output>[], depths: Record<string, number> = {}) => {
    gw.devices = devices.map((d) => ({ status: 'online', hasRoom: true, sims: [], ...d }));
    gw.depths = depths;
    await online(...devices.map((d) => d.deviceId!));
  };
  const send = (body: Record<string, unknown>, headers: Record<string, string> = {}) =>
    gw.call('POST', '/v1/sms/send', { key: apiKey(), body: { to: '+33612345678', message: 'Bonjour', ...body }, headers });
  const bulk = (body: Record<string, unknown>, headers: Record<string, string> = {}) =>
    gw.call('POST', '/v1/sms/send-bulk', {
      key: apiKey(),
      body: { recipients: ['+33612345678', '+33698765432'], message: 'x', ...body },
      headers,
    });
  const personalized = (body: Record<string, unknown>, headers: Record<string, string> = {}) =>
    gw.call('POST', '/v1/sms/send-bulk-personalized', { key: apiKey(), body, headers });
  const otp = (body: Record<string, unknown>, headers: Record<string, string> = {}) =>
    gw.call('POST', '/v1/sms/send-otp', { key: apiKey(), body: { to: '+33612345678', ...body }, headers });
  const calls = () => gw.sends.length + gw.batches.length + gw.otps.length;

  describe('validation', () => {
    beforeAll(() => fleet([{ deviceId: 'device_V' }]));

    it.each([0, 9, '2', 1.5, true, -1])(
      'when sim is %p, then 400 VALIDATION_ERROR names sim with a French sentence on every sending endpoint, and nothing is sent',
      async (sim) => {
        const before = calls();
        const refusals = [
          await send({ sim }),
          await bulk({ sim }),
          await personalized({ messages: [{ to: '+33612345678', message: 'a' }], sim }),
          await otp({ sim }),
        ];
        for (const res of refusals) {
          expect({ status: res.status, body: res.body }).toEqual({
            status: 400,
            body: {
              success: false,
              error: {
                code: 'VALIDATION_ERROR',
                message: simSentence,
                details: [{ field: 'sim', code: 'VALIDATION_ERROR', message: simSentence }],
              },
            },
          });
        }
        expect(calls()).toBe(before);
      },
    );

    it("when one personalised message's sim is bad, then the field named is messages[i].sim", async () => {
      const res = await personalized({
        messages: [
          { to: '+33612345678', message: 'a', sim: 1 },
          { to: '+33698765432', message: 'b', sim: 12 },
        ],
      });
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: [{ field: 'messages[1].sim' }] });
    });

    it('when replies is not a boolean, or true without a webhook_url, then 400 VALIDATION_ERROR names replies', async () => {
      const before = calls();
      const cases = [
        [await send({ replies: 'yes', webhook_url: HOOK }), 'Le champ replies doit être un booléen (true ou false).'],
        [await send({ replies: true }), 'Le champ replies demande un webhook_url : les réponses y sont envoyées.'],
        [await bulk({ replies: true }), 'Le champ replies demande un webhook_url : les réponses y sont envoyées.'],
        [
          await personalized({ messages: [{ to: '+33612345678', message: 'a' }], replies: 1, webhook_url: HOOK }),
          'Le champ replies doit être un booléen (true ou false).',
        ],
      ] as const;
      for (const [res, message] of cases) {
        expect({ status: res.status, error: res.body.error }).toEqual({
          status: 400,
          error: { code: 'VALIDATION_ERROR', message, details: [{ field: 'replies', code: 'VALIDATION_ERROR', message }] },
        });
      }
      expect(calls()).toBe(before);
    });

    it('when replies is true with a bad webhook_url, then only webhook_url is named', async () => {
      const res = await send({ replies: true, webhook_url: 'http://hooks.example.com' });
      expect(res.body.error).toMatchObject({ code: 'INVALID_WEBHOOK_URL', details: [{ field: 'webhook_url' }] });
    });
  });

  describe('what reaches the services, and the answers', () => {
    beforeAll(() => fleet([{ deviceId: 'device_P', sims: sims(2) }]));

    it('when a send asks for SIM 2 with replies, then the message service gets sim 2 and replies, and the answer shows sim 2', async () => {
      const res = await send({ sim: 2, replies: true, webhook_url: HOOK });
      expect(res.status).toBe(200);
      expect(gw.sends.at(-1)).toMatchObject({ sim: 2, replies: true, webhookUrl: HOOK });
      expect(res.body).toMatchObject({ success: true, sim: 2 });
      const conforms = bodySchemaAt('post', '/v1/sms/send');
      expect(conforms(res.body) ? [] : conforms.errors).toEqual([]);
    });

    it('when a send names no SIM, then sim 0 and replies false are passed, and the answer shows sim null', async () => {
      const res = await send({ sim: null });
      expect(gw.sends.at(-1)).toMatchObject({ sim: 0, replies: false });
      expect(res.body).toMatchObject({ success: true, sim: null });
    });

    it('when a bulk send asks for a SIM, then every message gets it, and each answered message shows it', async () => {
      const res = await bulk({ sim: 2, replies: true, webhook_url: HOOK });
      expect(res.status).toBe(200);
      expect(gw.batches.at(-1)).toMatchObject({ sims: [2, 2], replies: true });
      expect(res.body.messages).toEqual([expect.objectContaining({ sim: 2 }), expect.objectContaining({ sim: 2 })]);
      const conforms = bodySchemaAt('post', '/v1/sms/send-bulk');
      expect(conforms(res.body) ? [] : conforms.errors).toEqual([]);
      await bulk({});
      expect(gw.batches.at(-1)).toMatchObject({ sims: [0, 0], replies: false });
    });

    it("when personalised messages give their own sim, then each keeps it; the others take the request's sim, else none", async () => {
      const messages = [
        { to: '+33612345678', message: 'a', sim: 1 },
        { to: '+33698765432', message: 'b' },
      ];
      const res = await personalized({ messages, sim: 2 });
      expect(res.status).toBe(200);
      expect(gw.batches.at(-1)?.sims).toEqual([1, 2]);
      expect(res.body.messages).toEqual([expect.objectContaining({ sim: 1 }), expect.objectContaining({ sim: 2 })]);
      await personalized({ messages });
      expect(gw.batches.at(-1)?.sims).toEqual([1, 0]);
    });

    it('when send-otp asks for a SIM, then the otp service gets it; without one, 0', async () => {
      expect((await otp({ sim: 2 })).status).toBe(200);
      expect(gw.otps.at(-1)).toMatchObject({ sim: 2 });
      await otp({});
      expect(gw.otps.at(-1)).toMatchObject({ sim: 0 });
    });
  });

  describe('the phone named by X-Device-ID', () => {
    beforeAll(() => fleet([{ deviceId: 'device_Two', sims: sims(2) }, { deviceId: 'device_Old' }]));
    const two = { 'x-device-id': 'device_Two' };

    it('when it reported 2 SIMs and SIM 3 is asked for, then every sending endpoint answers 400 naming sim, and nothing is sent', async () => {
      const before = calls();
      const message = "Le téléphone n'a que 2 SIM.";
      const refusals = [
        await send({ sim: 3 }, two),
        await bulk({ sim: 3 }, two),
        await personalized({ messages: [{ to: '+33612345678', message: 'a', sim: 3 }] }, two),
        await otp({ sim: 3 }, two),
      ];
      for (const res of refusals) {
        expect({ status: res.status, error: res.body.error }).toEqual({
          status: 400,
          error: { code: 'VALIDATION_ERROR', message, details: [{ field: 'sim', code: 'VALIDATION_ERROR', message }] },
        });
      }
      expect(calls()).toBe(before);
    });

    it('when it reported 2 SIMs and SIM 2 is asked for, then the message is pinned to it with sim 2', async () => {
      expect((await send({ sim: 2 }, two)).status).toBe(200);
      expect(gw.sends.at(-1)).toMatchObject({ deviceId: 'device_Two', pinned: true, sim: 2 });
    });

    it('when its SIMs are unknown (an older agent), then any SIM is accepted', async () => {
      expect((await send({ sim: 8 }, { 'x-device-id': 'device_Old' })).status).toBe(200);
      expect(gw.sends.at(-1)).toMatchObject({ deviceId: 'device_Old', sim: 8 });
    });
  });

  describe('the automatic choice', () => {
    it('when SIM 2 is asked for, then only the phones with a second SIM or unknown SIMs are candidates, the shortest queue first', async () => {
      await fleet([{ deviceId: 'device_One', sims: sims(1) }, { deviceId: 'device_Dual', sims: sims(2) }, { deviceId: 'device_Unknown' }], {
        device_One: 0,
        device_Dual: 5,
        device_Unknown: 3,
      });
      expect((await send({ sim: 2 })).body).toMatchObject({ device_id: 'device_Unknown', sim: 2 });
      expect((await send({})).body).toMatchObject({ device_id: 'device_One' });
      gw.depths = { device_One: 0, device_Dual: 1, device_Unknown: 3 };
      expect((await send({ sim: 2 })).body).toMatchObject({ device_id: 'device_Dual' });
    });

    it('when no phone of the client has that SIM, then 400 VALIDATION_ERROR names sim, and nothing is sent', async () => {
      await fleet([
        { deviceId: 'device_One', sims: sims(1) },
        { deviceId: 'device_Dual', sims: sims(2) },
      ]);
      const before = calls();
      const message = "Aucun téléphone de ce client n'a de SIM 3.";
      for (const res of [await send({ sim: 3 }), await bulk({ sim: 3 }), await otp({ sim: 3 })]) {
        expect({ status: res.status, error: res.body.error }).toEqual({
          status: 400,
          error: { code: 'VALIDATION_ERROR', message, details: [{ field: 'sim', code: 'VALIDATION_ERROR', message }] },
        });
      }
      expect(calls()).toBe(before);
    });

    it('when the client has no online phone at all, then it is still 503 DEVICE_OFFLINE', async () => {
      await fleet([]);
      const res = await send({ sim: 2 });
      expect({ status: res.status, code: res.body.error?.code }).toEqual({ status: 503, code: 'DEVICE_OFFLINE' });
    });

    it('when the SIM asked for has no room on one phone, then a phone whose SIM has room is preferred', async () => {
      await fleet(
        [
          { deviceId: 'device_Full2', sims: sims(2, [2]) },
          { deviceId: 'device_Room2', sims: sims(2) },
        ],
        { device_Full2: 0, device_Room2: 4 },
      );
      expect((await send({ sim: 2 })).body).toMatchObject({ device_id: 'device_Room2' });
      expect((await send({ sim: 1 })).body).toMatchObject({ device_id: 'device_Full2' });
    });

    it('when a personalised batch mixes SIMs, then each message goes only to a phone that has its SIM', async () => {
      await fleet(
        [
          { deviceId: 'device_One', sims: sims(1) },
          { deviceId: 'device_Dual', sims: sims(2) },
        ],
        {
          device_One: 0,
          device_Dual: 0,
        },
      );
      const messages = [
        { to: '+33612345601', message: 'a', sim: 2 },
        { to: '+33612345602', message: 'b' },
        { to: '+33612345603', message: 'c', sim: 2 },
        { to: '+33612345604', message: 'd', sim: 1 },
      ];
      expect((await personalized({ messages })).status).toBe(200);
      expect(gw.batches.at(-1)).toMatchObject({
        deviceIds: ['device_Dual', 'device_One', 'device_Dual', 'device_One'],
        sims: [2, 0, 2, 1],
      });
    });
  });

  describe('status and history', () => {
    const taken = storedMessage({
      status: 'sent',
      sentAt: T0,
      sim: 2,
      requestedSim: 0,
      replies: true,
      attempts: [{ deviceId: 'device_A', status: 'sent', errorCode: '', errorMessage: '', at: T0, sim: 2, reconciled: '' }],
    });

    it('when a message went out through SIM 2 with replies, then its status shows sim, replies and the SIM of its attempt, as documented', async () => {
      gw.message = taken;
      const res = await gw.call('GET', `/v1/sms/status/${taken.messageId}`, { key: apiKey() });
      expect(res.body).toMatchObject({ success: true, sim: 2, replies: true, attempts: [expect.objectContaining({ sim: 2 })] });
      const conforms = bodySchemaAt('get', '/v1/sms/status/{message_id}');
      expect(conforms(res.body) ? [] : conforms.errors).toEqual([]);
    });

    it('when the history lists messages, then each shows sim (null when unknown) and replies, as documented', async () => {
      gw.message = taken;
      const res = await gw.call('GET', '/v1/sms/history', { key: apiKey() });
      expect(res.body.data).toEqual([expect.objectContaining({ sim: 2, replies: true, attempts: [expect.objectContaining({ sim: 2 })] })]);
      const conforms = bodySchemaAt('get', '/v1/sms/history');
      expect(conforms(res.body) ? [] : conforms.errors).toEqual([]);
      gw.message = storedMessage({
        attempts: [{ deviceId: 'device_A', status: 'queued', errorCode: '', errorMessage: '', at: T0, sim: 0, reconciled: '' }],
      });
      const unknown = await gw.call('GET', '/v1/sms/history', { key: apiKey() });
      expect(unknown.body.data).toEqual([
        expect.objectContaining({ sim: null, replies: false, attempts: [expect.objectContaining({ sim: null })] }),
      ]);
    });
  });
});
