import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Redis from 'ioredis';
import { startPrivateServer, type PrivateServer } from '@smsgw/stack';
import { eventually } from '@smsgw/testing';
import { HubCluster, postPair } from './support/hub';
import { Phone } from './support/phone';

/**
 * A Redis restart under a hub holding a phone, with a private Redis of this test's own (never the
 * machine's shared one): Redis keeps no data across a restart, so the phone's presence is gone;
 * the hub writes it again as soon as Redis is back, not at the phone's next pong (a minute here).
 */
describe('device-hub: a Redis restart', () => {
  let dir: string;
  let redis: PrivateServer;
  let hub: HubCluster;
  let keys: Redis;

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'smsgw-hub-redis-'));
    redis = await startPrivateServer('redis', { dataDir: dir });
    hub = await HubCluster.start(1, { REDIS_URL: redis.url, AGENT_PING_INTERVAL_MS: '60000', PRESENCE_TTL_MS: '120000' });
    keys = new Redis(redis.url, { keyPrefix: hub.redisPrefix });
  }, 90_000);

  afterAll(async () => {
    keys?.disconnect();
    await hub?.stop();
    await redis?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("when Redis restarts empty, then the hub writes its phone's presence again within seconds and the device reads online", async () => {
    const clientId = `client_${Date.now()}`;
    const created = await hub.first.client.createDevice({ clientId, name: 'phone' });
    const paired = await postPair(hub.first.agentUrl, hub.certs.caPem, { client_id: clientId, device_password: created.devicePassword });
    expect(paired.status).toBe(200);
    const phone = await Phone.connect(hub.first.agentUrl, hub.certs.caPem, paired.body.device_token as string);
    await phone.next('hello');
    const presence = `presence:${created.deviceId}`;
    await eventually(async () => (await keys.exists(presence)) === 1, 5000, 'the presence written at the connect');

    await redis.stop();
    await redis.start();

    await eventually(async () => (await keys.exists(presence)) === 1, 10_000, 'the presence written again');
    expect(await keys.sismember(`presence-client:${clientId}`, created.deviceId)).toBe(1);
    expect((await hub.first.client.getDevice({ clientId, deviceId: created.deviceId })).status).toBe('online');
    phone.ws.close();
  }, 60_000);
});
