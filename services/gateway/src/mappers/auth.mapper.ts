import type { AuthContext } from '../http/context';
import type { ChosenDevice } from '../use-cases/choose-device.use-case';

export function authTestBody(auth: AuthContext, device: ChosenDevice): Record<string, unknown> {
  return {
    success: true,
    message: 'Authentification réussie.',
    client_id: auth.clientId,
    device_id: device.deviceId,
    device_status: device.status,
    mode: auth.mode,
  };
}
