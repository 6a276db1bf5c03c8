import type { GrpcService } from '@smsgw/platform';
import { eventually } from '@smsgw/testing';
import { HubCluster, postPair } from './support/hub';
import { Phone } from './support/phone';
import { MessageStandIn, startAccountStandIn } from './support/stand-ins';

/**
 * A removed phone's and an offline phone's messages released to the fleet: the removal's Redis mark
 * and ReleaseDevice call, and the failover sweep, against a real hub, Postgres, Redis and NATS, with
 * real gRPC stand-ins of the message service (StrandedDevices, ReleaseDevice) and the account
 * service (the client's failover delay: 10 s).
 */

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('device-hub failover: removal and the failover sweep', () => {
  let messages: MessageStandIn;
  let accounts: GrpcService;
  let hub: HubCluster;

  beforeAll(async () => {
    messages = await MessageStandIn.start();
    accounts = await startAccountStandIn(10);
    hub = await HubCluster.start(1, {
      MESSAGE_GRPC_ADDR: messages.address,
      ACCOUNT_GRPC_ADDR: `127.0.0.1:${accounts.port}`,
      HUB_FAILOVER_SWEEP_MS: '200',
      // Every pass looks at every device holding stranded messages (the pass between full ones: below).
      HUB_FAILOVER_FULL_SWEEP_MS: '0',
    });
  }, 60_000);

  afterAll(async () => {
    await hub?.stop();
    await messages?.stop();
    await accounts?.stop(100);
  });

  beforeEach(() => {
    messages.stranded = [];
    messages.releases.length = 0;
    messages.releaseFails = false;
  });

  const newClient = () => `client_${Date.now()}${Math.floor(Math.random() * 1000)}`;
  const newDevice = async (clientId: string) => (await hub.first.client.createDevice({ clientId, name: 'phone' })).deviceId;
  const releasesOf = (deviceId: string) => messages.releases.filter((r) => r.deviceId === deviceId);

  it('when a device is removed, then the Redis mark is set and its messages are released REMOVED before the answer; a failed release still answers, and the sweep repeats it', async () => {
    const clientId = newClient();
    const deviceId = await newDevice(clientId);
    expect(await hub.first.client.removeDevice({ clientId, deviceId })).toEqual({ removed: true });
    expect(await hub.redis.get(`device-removed:${deviceId}`)).not.toBeNull();
    expect(releasesOf(deviceId)).toEqual([{ clientId, deviceId, reason: 'RELEASE_REASON_REMOVED' }]);
    await expect(hub.first.client.getDevice({ clientId, deviceId })).rejects.toMatchObject({ code: 'INVALID_DEVICE_ID' });

    const other = await newDevice(clientId);
    messages.releaseFails = true;
    expect(await hub.first.client.removeDevice({ clientId, deviceId: other })).toEqual({ removed: true });
    expect(await hub.redis.get(`device-removed:${other}`)).not.toBeNull();
    // The sweep finds it still holding messages: it releases it again, and restores a lost mark.
    messages.releaseFails = false;
    await hub.redis.del(`device-removed:${other}`);
    messages.stranded = [{ deviceId: other, clientId, queued: 2 }];
    await eventually(async () => releasesOf(other).length >= 2, 5000, 'the sweep to release the removed device');
    expect(releasesOf(other).at(-1)).toEqual({ clientId, deviceId: other, reason: 'RELEASE_REASON_REMOVED' });
    expect(await hub.redis.get(`device-removed:${other}`)).not.toBeNull();
  });

  it("when a device holding stranded messages is offline, then the sweep releases it OFFLINE once it has been offline past its client's delay, and not before", async () => {
    const clientId = newClient();
    const offline = await newDevice(clientId);
    const online = await newDevice(clientId);
    const fresh = await newDevice(clientId);
    // Offline for 5 s (delay 10 s); online (presence) though last seen long ago; never seen but created just now.
    await hub.redis.set(`presence-last:${offline}`, String(Date.now() - 5000));
    await hub.redis.set(`presence:${online}`, 'conn', 'PX', 60_000);
    await hub.redis.set(`presence-last:${online}`, String(Date.now() - 3600_000));
    messages.stranded = [offline, online, fresh].map((deviceId) => ({ deviceId, clientId, queued: 1 }));

    await sleep(1500);
    expect(messages.releases).toEqual([]);

    await hub.redis.set(`presence-last:${offline}`, String(Date.now() - 11_000));
    await eventually(async () => releasesOf(offline).length > 0, 5000, 'the offline device released');
    expect(releasesOf(offline)[0]).toEqual({ clientId, deviceId: offline, reason: 'RELEASE_REASON_OFFLINE' });
    await sleep(600);
    expect(releasesOf(online)).toEqual([]);
    expect(releasesOf(fresh)).toEqual([]);
  });

  it('when a device was never seen online by Redis, then its offline time counts from its last_seen_at', async () => {
    const clientId = newClient();
    const deviceId = await newDevice(clientId);
    await hub.pool.query(`UPDATE devices SET last_seen_at = now() - interval '1 minute' WHERE device_id = $1`, [deviceId]);
    messages.stranded = [{ deviceId, clientId, queued: 1 }];
    await eventually(async () => releasesOf(deviceId).length > 0, 5000, 'the device released');
    expect(releasesOf(deviceId)[0]!.reason).toBe('RELEASE_REASON_OFFLINE');
  });
});

describe('device-hub failover: the passes between full ones look at the phones gone lately', () => {
  let messages: MessageStandIn;
  let accounts: GrpcService;
  let hub: HubCluster;

  beforeAll(async () => {
    messages = await MessageStandIn.start();
    accounts = await startAccountStandIn(10);
    hub = await HubCluster.start(1, {
      MESSAGE_GRPC_ADDR: messages.address,
      ACCOUNT_GRPC_ADDR: `127.0.0.1:${accounts.port}`,
      HUB_FAILOVER_SWEEP_MS: '200',
      HUB_FAILOVER_FULL_SWEEP_MS: '600000',
    });
  }, 60_000);

  afterAll(async () => {
    await hub?.stop();
    await messages?.stop();
    await accounts?.stop(100);
  });

  it('when a phone disconnects while another device never connected, then the passes ask about the gone phone by name and release it past its delay, and leave the other to the full pass', async () => {
    const clientId = `client_${Date.now()}${Math.floor(Math.random() * 1000)}`;
    const created = await hub.first.client.createDevice({ clientId, name: 'phone' });
    const never = (await hub.first.client.createDevice({ clientId, name: 'never seen' })).deviceId;
    await hub.pool.query(`UPDATE devices SET created_at = now() - interval '1 hour' WHERE device_id = $1`, [never]);
    const paired = await postPair(hub.first.agentUrl, hub.certs.caPem, { client_id: clientId, device_password: created.devicePassword });
    const phone = await Phone.connect(hub.first.agentUrl, hub.certs.caPem, paired.body.device_token as string);
    await phone.next('hello');
    messages.stranded = [created.deviceId, never].map((deviceId) => ({ deviceId, clientId, queued: 1 }));
    await sleep(500); // the first pass (a full one) is over: the phone was online
    phone.ws.close();
    await phone.closed();

    await eventually(
      async () => messages.strandedAsked.some((ids) => ids.includes(created.deviceId)),
      5000,
      'a pass asking about the gone phone',
    );
    expect(messages.strandedAsked.slice(1).every((ids) => ids.length > 0 && !ids.includes(never))).toBe(true);
    // Gone 11 s ago (its client's delay: 10 s): released at the next pass; the never-seen device is not.
    await hub.redis.set(`presence-last:${created.deviceId}`, String(Date.now() - 11_000));
    await eventually(async () => messages.releases.some((r) => r.deviceId === created.deviceId), 5000, 'the gone phone released');
    await sleep(600);
    // (The stand-in lists it as stranded still, so the passes release it again: ReleaseDevice is idempotent.)
    expect([...new Set(messages.releases.map((r) => `${r.deviceId} ${r.reason}`))]).toEqual([`${created.deviceId} RELEASE_REASON_OFFLINE`]);
  });
});
