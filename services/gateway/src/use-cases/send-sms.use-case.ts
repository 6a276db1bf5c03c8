import type { DeviceState } from '../clients/device-directory';
import type { SendRequest } from '../domain/send-request';
import type { AuthContext } from '../http/context';
import { expiresAtOf, resolveTtl, toSendRequest, type IdempotencyFields } from '../mappers/sms.mapper';
import { chooseDevice } from './choose-device.use-case';
import { countedSend } from './key-quota';
import type { Upstreams } from './upstreams';

export interface SendOptions {
  /** The X-Device-ID header, when given. */
  deviceId: string | undefined;
  /** The requested device's state, when it was already asked for (with the rate limit). */
  presence?: { deviceId: string; state: Promise<DeviceState> };
  idempotency: IdempotencyFields | undefined;
}

/**
 * One SMS: the device (the requested one, or the automatic choice; offline
 * allowed for a scheduled send), then the message service through the send
 * gatherer. `receipt.replayed` says an earlier request with the same
 * Idempotency-Key stored it. A message sent through X-Device-ID stays on
 * that device (pinned) unless the body says `"failover": true`. It counts
 * against its key's daily quota.
 */
export async function sendSms(up: Upstreams, auth: AuthContext, request: SendRequest, options: SendOptions) {
  const device = await chooseDevice(up, auth, options.deviceId, {
    allowOffline: request.scheduledAt !== undefined,
    presence: options.presence,
    sim: request.sim,
  });
  const pinned = options.deviceId !== undefined && !request.failover;
  const receipt = await countedSend(
    up,
    auth,
    1,
    () => up.sends.send(toSendRequest(auth, { deviceId: device.deviceId, pinned }, request, options.idempotency)),
    (r) => r.replayed,
  );
  return { deviceId: device.deviceId, receipt, expiresAt: expiresAtOf(receipt, resolveTtl(auth, request.ttlSeconds)) };
}
