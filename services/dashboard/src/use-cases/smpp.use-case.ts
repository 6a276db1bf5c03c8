import { AppError, keyModeToProto } from '@smsgw/platform';
import type { account } from '@smsgw/proto';
import { confirmPassword, type Confirmation, type Reauthentication } from './confirm-password.use-case';
import type { SignInDeps } from './sign-in.use-case';
import type { Mode, Upstreams } from './upstreams';

export const SMPP_BIND_TYPES = ['transceiver', 'transmitter', 'receiver'] as const;
export type SmppBindTypeForm = (typeof SMPP_BIND_TYPES)[number];

const BIND_TYPE_PROTO: Record<SmppBindTypeForm, account.SmppBindType> = {
  transmitter: 'SMPP_BIND_TYPE_TRANSMITTER',
  receiver: 'SMPP_BIND_TYPE_RECEIVER',
  transceiver: 'SMPP_BIND_TYPE_TRANSCEIVER',
};

export async function listSmppCredentials(up: Upstreams, clientId: string): Promise<account.SmppCredential__Output[]> {
  return (await up.accounts.listSmppCredentials({ clientId })).credentials;
}

/**
 * A new SMPP credential, the password asked again first (as for a key): its system id and
 * password (shown once), and the client's credentials with it. The phone, when one is named, must
 * be the client's (`error` otherwise).
 */
export async function createSmppCredential(
  deps: Pick<SignInDeps, 'up' | 'redis' | 'signIn'>,
  user: { userId: string; email: string; clientId: string },
  reauth: Reauthentication,
  form: { label: string; bindType: SmppBindTypeForm; mode: Mode; deviceId: string },
  address = '',
): Promise<{
  confirmation: Confirmation;
  created?: { systemId: string; password: string };
  error?: string;
  credentials: account.SmppCredential__Output[];
}> {
  const confirmation = await confirmPassword(deps, user, reauth);
  const list = () => listSmppCredentials(deps.up, user.clientId);
  if (confirmation !== 'confirmed') return { confirmation, credentials: await list() };
  if (form.deviceId) {
    try {
      await deps.up.devices.getDevice({ clientId: user.clientId, deviceId: form.deviceId });
    } catch (err) {
      if (err instanceof AppError && err.code === 'INVALID_DEVICE_ID')
        return { confirmation, error: 'This phone is not one of yours.', credentials: await list() };
      throw err;
    }
  }
  const made = await deps.up.accounts.createSmppCredential({
    clientId: user.clientId,
    bindType: BIND_TYPE_PROTO[form.bindType],
    mode: keyModeToProto(form.mode),
    label: form.label,
    deviceId: form.deviceId,
    userId: user.userId,
    actorAddress: address,
  });
  return { confirmation, created: { systemId: made.credential!.systemId, password: made.password }, credentials: await list() };
}

export async function revokeSmppCredential(up: Upstreams, user: { userId: string; clientId: string }, credentialId: string, address = '') {
  await up.accounts.revokeSmppCredential({ clientId: user.clientId, credentialId, userId: user.userId, actorAddress: address });
}
