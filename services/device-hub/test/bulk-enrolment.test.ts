import { DeviceRepository } from '../src/data/device.repository';
import { deviceUseCasesOn, HubCluster, postPair } from './support/hub';

const codeOf = (pairingUrl: string) => new URL(pairingUrl).searchParams.get('code')!;

describe('enrolling a fleet in one call (CreateDevices)', () => {
  let hub: HubCluster;
  let clientNumber = 0;
  const newClientId = () => `client_${Date.now()}${String(++clientNumber).padStart(4, '0')}`;

  beforeAll(async () => {
    hub = await HubCluster.start(1);
  });

  afterAll(async () => {
    await hub?.stop();
  });

  it('when 1,000 devices are made at once, then each is named in turn and pairs with its own one-time code', async () => {
    const clientId = newClientId();
    const { devices } = await hub.first.client.createDevices({ clientId, count: 1000, namePrefix: 'shop-', firstNumber: 1 });

    expect(devices).toHaveLength(1000);
    expect(new Set(devices.map((d) => d.deviceId)).size).toBe(1000);
    expect(new Set(devices.map((d) => d.pairingCode)).size).toBe(1000);
    expect(devices.every((d) => d.devicePassword === '' && codeOf(d.pairingUrl) === d.pairingCode)).toBe(true);
    const listed = await hub.first.client.listDevices({ clientId, onlineOnly: false });
    expect(listed.devices.map((d) => d.name).sort()).toEqual(Array.from({ length: 1000 }, (_, i) => `shop-${i + 1}`).sort());
    const byName = new Map(listed.devices.map((d) => [d.name, d.deviceId]));
    expect(byName.get('shop-1')).toBe(devices[0]!.deviceId);
    expect(byName.get('shop-1000')).toBe(devices[999]!.deviceId);

    for (const device of [devices[0]!, devices[499]!, devices[999]!]) {
      const paired = await postPair(hub.first.agentUrl, hub.certs.caPem, { pairing_code: device.pairingCode });
      expect(paired.status).toBe(200);
      expect(paired.body).toMatchObject({ success: true, device_id: device.deviceId, device_token: expect.stringMatching(/^dtk_/) });
    }
  });

  it('when a second batch starts at 1001, then its names follow the first batch', async () => {
    const clientId = newClientId();
    await hub.first.client.createDevices({ clientId, count: 2, namePrefix: 'p', firstNumber: 0 });
    await hub.first.client.createDevices({ clientId, count: 2, namePrefix: 'p', firstNumber: 1001 });

    const listed = await hub.first.client.listDevices({ clientId, onlineOnly: false });
    expect(listed.devices.map((d) => d.name).sort()).toEqual(['p1', 'p1001', 'p1002', 'p2']);
  });

  it('when a device of the batch gets a password later (RotateDeviceCredentials), then it pairs with the client id and that password', async () => {
    const clientId = newClientId();
    const { devices } = await hub.first.client.createDevices({ clientId, count: 1, namePrefix: 'x', firstNumber: 1 });
    const rotated = await hub.first.client.rotateDeviceCredentials({ clientId, deviceId: devices[0]!.deviceId });

    const paired = await postPair(hub.first.agentUrl, hub.certs.caPem, { client_id: clientId, device_password: rotated.devicePassword });
    expect(paired.status).toBe(200);
    expect(paired.body).toMatchObject({ device_id: devices[0]!.deviceId });
  });

  it.each([0, 1001])('when %i devices are asked for, then the call is refused with VALIDATION_ERROR and nothing is made', async (count) => {
    const clientId = newClientId();
    await expect(hub.first.client.createDevices({ clientId, count, namePrefix: 'x', firstNumber: 1 })).rejects.toMatchObject({
      code: 'VALIDATION_ERROR',
      message: 'count doit être un entier entre 1 et 1000.',
    });
    expect((await hub.first.client.listDevices({ clientId, onlineOnly: false })).devices).toEqual([]);
  });

  it('when a device is removed while it is being rotated, then the rotation answers INVALID_DEVICE_ID, not an internal error', async () => {
    const clientId = newClientId();
    const { devices } = await hub.first.client.createDevices({ clientId, count: 1, namePrefix: 'x', firstNumber: 1 });
    const deviceId = devices[0]!.deviceId;
    // The removal lands between the rotation's read of the device and its update.
    class RemovedMeanwhile extends DeviceRepository {
      override async rotateCredentials(...args: Parameters<DeviceRepository['rotateCredentials']>): Promise<boolean> {
        await hub.pool.query('UPDATE devices SET removed_at = now() WHERE device_id = $1', [deviceId]);
        return super.rotateCredentials(...args);
      }
    }
    const useCases = deviceUseCasesOn(hub, new RemovedMeanwhile(hub.pool));

    await expect(useCases.rotateCredentials(clientId, deviceId)).rejects.toMatchObject({ code: 'INVALID_DEVICE_ID' });
  });
});
