import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { connect } from '@nats-io/transport-node';
import { addRedisUsers, busUsers, natsAuthorization } from '../src/bus-users';
import { startPrivateServer, type PrivateServer } from '../src/infra/index';

let dataDir: string;
const servers: PrivateServer[] = [];

beforeEach(async () => {
  dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'smsgw-bus-users-'));
});

afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.stop()));
  await fs.rm(dataDir, { recursive: true, force: true });
});

function redisAs(url: string, user: string, password: string): Redis {
  const u = new URL(url);
  u.username = user;
  u.password = password;
  return new Redis(u.toString(), { lazyConnect: true, maxRetriesPerRequest: 0, keyPrefix: 'smsgw:t1:' });
}

describe("a run's NATS and Redis users", () => {
  it('when make dev starts again, then it finds the same passwords; an isolated run gets its own, named after it', () => {
    const dev = busUsers(dataDir, '');
    expect(busUsers(dataDir, '')).toEqual(dev);
    expect(dev.redis.dashboard.user).toBe('smsgw-dev-dashboard');
    const run = busUsers(dataDir, 'ab12');
    expect(run.redis.dashboard.user).toBe('smsgw-ab12-dashboard');
    expect(run.nats.message.password).not.toBe(dev.nats.message.password);
  });

  it('when a private Redis that has the users restarts, then they are there again, and deleting them is saved too', async () => {
    const redis = await startPrivateServer('redis', { dataDir });
    servers.push(redis);
    const users = busUsers(dataDir, 'ab12');
    const remove = await addRedisUsers(redis.url, users, 'smsgw:t1:');
    await redis.stop();
    await redis.start();
    const otp = redisAs(redis.url, users.redis.otp.user, users.redis.otp.password);
    await otp.connect();
    await otp.set('otp-rate:x', '1');
    await expect(otp.set('dashboard:session:x', '1')).rejects.toThrow(/NOPERM/);
    otp.disconnect();
    await remove();
    await redis.stop();
    await redis.start();
    const admin = new Redis(redis.url, { lazyConnect: true, maxRetriesPerRequest: 0 });
    await admin.connect();
    expect(await admin.call('ACL', 'USERS')).toEqual(['default']);
    admin.disconnect();
  });

  it("when a private NATS is given the users, then an unknown user is refused, a service's user connects and a connection without a user may do nothing", async () => {
    const nats = await startPrivateServer('nats', { dataDir });
    servers.push(nats);
    const users = busUsers(dataDir, 'ab12');
    await nats.authorize(natsAuthorization(users, 't1'), users.natsAdmin);
    await expect(connect({ servers: nats.url, user: 'nobody', pass: 'x', reconnect: false })).rejects.toThrow(/Authorization/i);
    const dashboard = await connect({ servers: nats.url, user: users.nats.dashboard.user, pass: users.nats.dashboard.password });
    await dashboard.close();
    const admin = await connect({ servers: nats.url, user: users.natsAdmin.user, pass: users.natsAdmin.password });
    await admin.close();
    // Without a user: connected, allowed nothing.
    const anonymous = await connect({ servers: nats.url });
    const refused = (async () => {
      for await (const s of anonymous.status()) if (s.type === 'error') return String(s.error);
      return '';
    })();
    anonymous.publish('t1.agent.report.device_x', '{}');
    await anonymous.flush();
    expect(await refused).toMatch(/Permissions Violation/);
    await anonymous.close();
  });
});
