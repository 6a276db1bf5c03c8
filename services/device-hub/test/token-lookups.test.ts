import { AppError } from '@smsgw/platform';
import { thrownBy } from '@smsgw/testing';
import { DeviceRepository } from '../src/data/device.repository';
import { deviceUseCasesOn, HubCluster, postPair } from './support/hub';

/** The real repository, counting the token queries. */
class CountingRepository extends DeviceRepository {
  queries: number[] = [];
  override async findTokens(lookups: string[]) {
    this.queries.push(lookups.length);
    return super.findTokens(lookups);
  }
}

describe("phones' tokens, looked up together when phones connect at once", () => {
  let hub: HubCluster;

  beforeAll(async () => {
    hub = await HubCluster.start(1);
  });

  afterAll(async () => {
    await hub?.stop();
  });

  it('when 30 phones authenticate at the same moment, then one query finds them all, each its own device, and a bad token among them is still refused', async () => {
    const clientId = `client_${Date.now()}0001`;
    const { devices } = await hub.first.client.createDevices({ clientId, count: 31, namePrefix: 'p', firstNumber: 1 });
    const tokens: string[] = [];
    for (const device of devices) {
      const paired = await postPair(hub.first.agentUrl, hub.certs.caPem, { pairing_code: device.pairingCode });
      tokens.push(paired.body.device_token as string);
    }
    const removed = devices.pop()!;
    const removedToken = tokens.pop()!;
    await hub.first.client.removeDevice({ clientId, deviceId: removed.deviceId });
    // Same lookup as a real token, another secret; and a lookup no token has.
    const forged = tokens[0]!.slice(0, -1) + (tokens[0]!.endsWith('a') ? 'b' : 'a');
    const unknown = tokens[1]!.replace(/^dtk_./, (head) => `dtk_${head.endsWith('Z') ? 'Y' : 'Z'}`);
    const repo = new CountingRepository(hub.pool);
    const useCases = deviceUseCasesOn(hub, repo);

    const [found, ...refused] = await Promise.all([
      Promise.all(tokens.map((token) => useCases.authenticate(token))),
      ...[forged, unknown, removedToken].map((token) => thrownBy(useCases.authenticate(token), AppError)),
    ]);

    // 32 lookups: the forged token shares the first phone's.
    expect(repo.queries).toEqual([32]);
    expect(found.map((f) => f.device.device_id)).toEqual(devices.map((d) => d.deviceId));
    expect(refused.map((err) => err.code)).toEqual(['INVALID_DEVICE_TOKEN', 'INVALID_DEVICE_TOKEN', 'INVALID_DEVICE_TOKEN']);

    // One phone alone is one query of its own.
    await useCases.authenticate(tokens[2]!);
    expect(repo.queries).toEqual([32, 1]);
  });
});
