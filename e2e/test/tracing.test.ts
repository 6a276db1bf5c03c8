import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { eventually } from './support/http';
import { TestSystem, type DemoClient, type DemoDevice } from './support/system';

/** Lines of a service's JSON log that belong to one trace. */
function traceLines(logDir: string, service: string, traceId: string): Record<string, unknown>[] {
  const file = path.join(logDir, `${service}.log`);
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.includes(traceId))
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

describe('tracing across services', () => {
  let system: TestSystem;
  let client: DemoClient;
  let device: DemoDevice;

  beforeAll(async () => {
    // Without the gateway's key and device caches, every request crosses every service.
    system = await TestSystem.start({ AUTH_CACHE_TTL_MS: '0', DEVICE_CACHE_TTL_MS: '0' });
    client = await system.createClient();
    device = await system.createDevice(client.client_id);
    await system.startAgent(client, device);
  });

  afterAll(async () => {
    await system?.stop();
  });

  it('when a request carries a W3C traceparent, then every service it crosses logs that trace id, and no log holds the text, the number or the key', async () => {
    const traceId = randomBytes(16).toString('hex');
    const text = `Secret text ${randomBytes(4).toString('hex')}`;
    const res = await system.api('/v1/sms/send', client, {
      headers: { 'X-Device-ID': device.device_id, traceparent: `00-${traceId}-${randomBytes(8).toString('hex')}-01` },
      body: { to: '+33698765432', message: text },
    });
    expect(res.status).toBe(200);
    await system.waitForStatus(client, String(res.body.message_id), 'delivered');

    const logDir = system.stack.logDir;
    await eventually(async () => (traceLines(logDir, 'message', traceId).length > 0 ? true : undefined), 10_000, 'message logs');
    const gateway = traceLines(logDir, 'gateway', traceId);
    expect(gateway).toEqual(expect.arrayContaining([expect.objectContaining({ msg: 'request', route: '/v1/sms/send', status: 200 })]));
    expect(traceLines(logDir, 'account', traceId)).toEqual(
      expect.arrayContaining([expect.objectContaining({ msg: 'gRPC call', method: 'VerifyApiKey' })]),
    );
    expect(traceLines(logDir, 'device-hub', traceId)).toEqual(
      expect.arrayContaining([expect.objectContaining({ msg: 'gRPC call', method: 'GetDevice' })]),
    );
    // The gateway gathers sends into SendMany calls; the message service logs each message in its request's trace.
    expect(traceLines(logDir, 'message', traceId)).toEqual(
      expect.arrayContaining([expect.objectContaining({ msg: 'message queued', message_id: res.body.message_id })]),
    );

    for (const service of ['gateway', 'account', 'message', 'device-hub']) {
      const all = fs.readFileSync(path.join(logDir, `${service}.log`), 'utf8');
      expect(all).not.toContain(text);
      expect(all).not.toContain('+33698765432');
      expect(all).not.toContain(client.live_api_key);
    }
  });
});
