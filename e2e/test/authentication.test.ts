import { request } from './support/http';
import { TestSystem, type DemoClient, type DemoDevice } from './support/system';

const SEND = { to: '+33612345678', message: 'test' };

describe('authentication rules of the specification', () => {
  let system: TestSystem;
  let client: DemoClient;
  let online: DemoDevice;
  let offline: DemoDevice;
  let stranger: DemoClient;
  let strangersDevice: DemoDevice;

  beforeAll(async () => {
    system = await TestSystem.shared();
    // The operator command line, as a script would use it.
    client = (await system.cli('create-client', '--email', 'owner@example.com', '--name', 'Owner')) as unknown as DemoClient;
    online = (await system.cli('create-device', '--client', client.client_id, '--name', 'Pixel')) as unknown as DemoDevice;
    offline = await system.createDevice(client.client_id, 'drawer phone');
    stranger = await system.createClient();
    strangersDevice = await system.createDevice(stranger.client_id);
    await system.startAgent(client, online);
  });

  afterAll(async () => {
    await system?.stop();
  });

  it('when the operator creates a client, then it gets a live key, a test key and a signing secret', () => {
    expect(client.client_id).toMatch(/^client_[0-9]+$/);
    expect(client.live_api_key).toMatch(/^sgw_live_[A-Za-z0-9]{40}$/);
    expect(client.test_api_key).toMatch(/^sgw_test_[A-Za-z0-9]{40}$/);
    expect(client.signing_secret).toMatch(/^whsec_/);
    expect(online.device_id).toMatch(/^device_[A-Za-z0-9]+$/);
    expect(online.device_password).toMatch(/^[A-Z0-9]{4}(-[A-Z0-9]{4}){3}$/);
  });

  it('when the credentials are right, then the authentication test answers with the online device', async () => {
    const res = await system.api('/v1/auth/test', client, { headers: { 'X-Device-ID': online.device_id } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ success: true, client_id: client.client_id, device_id: online.device_id, device_status: 'online' });
  });

  it.each([
    ['X-API-Key', { 'X-Client-ID': 'client_1' }],
    ['X-Client-ID', { 'X-API-Key': 'sgw_live_x' }],
    ['both', {}],
  ])('rule 3: when %s is missing, then 400 MISSING_AUTH_HEADERS', async (_missing, headers) => {
    const res = await system.api('/v1/sms/send', undefined, { headers, body: SEND });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ success: false, error: { code: 'MISSING_AUTH_HEADERS' } });
    expect(String((res.body.error as { message: string }).message)).toMatch(/En-têtes/);
    expect(res.headers['x-request-id']).toBeTruthy();
  });

  it('rule 4: when the key is unknown, malformed or belongs to another client, then 401 INVALID_API_KEY', async () => {
    for (const key of ['sgw_live_' + 'A'.repeat(40), 'not-a-key', stranger.live_api_key]) {
      const res = await system.api('/v1/sms/send', undefined, {
        headers: { 'X-API-Key': key, 'X-Client-ID': client.client_id },
        body: SEND,
      });
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ success: false, error: { code: 'INVALID_API_KEY', message: 'Clé API invalide, expirée ou révoquée.' } });
    }
  });

  it('rule 5: when the client id is unknown, then 401 INVALID_CLIENT_ID', async () => {
    const res = await system.api('/v1/auth/test', undefined, {
      headers: { 'X-API-Key': client.live_api_key, 'X-Client-ID': 'client_123' },
    });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ success: false, error: { code: 'INVALID_CLIENT_ID', message: 'Identifiant client inconnu.' } });
  });

  it("rule 6: when the device does not exist or is another client's, then 404 INVALID_DEVICE_ID", async () => {
    for (const deviceId of ['device_DOESNOTEXIST', strangersDevice.device_id, 'not a device']) {
      const res = await system.api('/v1/sms/send', client, { headers: { 'X-Device-ID': deviceId }, body: SEND });
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({ success: false, error: { code: 'INVALID_DEVICE_ID' } });
    }
  });

  it('rule 7: when the device is offline, then 503 DEVICE_OFFLINE and nothing is queued', async () => {
    const res = await system.api('/v1/sms/send', client, { headers: { 'X-Device-ID': offline.device_id }, body: SEND });
    expect(res.status).toBe(503);
    expect(res.body).toEqual({ success: false, error: { code: 'DEVICE_OFFLINE', message: "L'appareil est hors ligne." } });
  });

  it('when a key is revoked, then it is refused within 5 seconds', async () => {
    const owner = await system.createClient();
    const device = await system.createDevice(owner.client_id);
    await system.startAgent(owner, device);
    expect((await system.api('/v1/auth/test', owner)).status).toBe(200);

    const revoked = await system.cli('revoke-key', '--key', owner.live_api_key);
    expect(revoked.revoked_at).toBeTruthy();
    const start = Date.now();
    let res = await system.api('/v1/auth/test', owner);
    while (res.status === 200 && Date.now() - start < 8000) {
      await new Promise((r) => setTimeout(r, 200));
      res = await system.api('/v1/auth/test', owner);
    }
    expect(res.status).toBe(401);
    // The gateway trusts a verified key for 5 s at most; one request's time on a loaded machine on top.
    expect(Date.now() - start).toBeLessThanOrEqual(6000);
    expect(res.body).toMatchObject({ error: { code: 'INVALID_API_KEY' } });
    // The client's other key still works.
    expect((await system.api('/v1/auth/test', owner, {}, 'test')).status).toBe(200);
  });

  it('when a request arrives over plain HTTP, then it is refused with 403 HTTPS_REQUIRED', async () => {
    const plainUrl = system.stack.gatewayUrl.replace('https://', 'http://');
    const res = await request(`${plainUrl}/v1/sms/send`, '', {
      headers: { 'X-API-Key': client.live_api_key, 'X-Client-ID': client.client_id, 'X-Request-ID': 'trace-me-1' },
      body: SEND,
    });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({
      success: false,
      error: { code: 'HTTPS_REQUIRED', message: 'HTTPS est obligatoire : les requêtes en HTTP simple sont refusées.' },
    });
    expect(res.headers['x-request-id']).toBe('trace-me-1');
  });

  it('when the body is not JSON, or the route or method does not exist, then the error envelope says so', async () => {
    const bad = await system.api('/v1/sms/send', client, { rawBody: '{"to": ' });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ success: false, error: { code: 'INVALID_JSON' } });
    const missing = await system.api('/v1/nothing-here', client);
    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({ success: false, error: { code: 'NOT_FOUND' } });
    const wrongMethod = await system.api('/v1/auth/test', client, { method: 'POST', body: {} });
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.body).toMatchObject({ success: false, error: { code: 'METHOD_NOT_ALLOWED' } });
  });
});
