import type { DeviceState } from '../clients/device-directory';
import type { AuthContext } from '../http/context';
import { chooseDevice, type ChosenDevice } from './choose-device.use-case';
import type { Upstreams } from './upstreams';

/** GET /v1/auth/test: the key is good (the middleware said so); the device a send would use now. */
export async function testAuth(
  up: Upstreams,
  auth: AuthContext,
  deviceId: string | undefined,
  presence?: { deviceId: string; state: Promise<DeviceState> },
): Promise<ChosenDevice> {
  return chooseDevice(up, auth, deviceId, { presence });
}
