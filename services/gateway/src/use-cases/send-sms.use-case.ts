import type { SendRequest } from '../domain/send-request';
import type { AuthContext } from '../http/context';
import { toSendRequest, type IdempotencyFields } from '../mappers/sms.mapper';
import { chooseDevice } from './choose-device.use-case';
import type { Upstreams } from './upstreams';

export interface SendOptions {
  /** The X-Device-ID header, when given. */
  deviceId: string | undefined;
  /** The requested device's presence, when it was already asked for (with the rate limit). */
  presence?: { deviceId: string; online: Promise<boolean> };
  idempotency: IdempotencyFields | undefined;
}

/**
 * One SMS: the device (the requested one, or the client's least busy; offline
 * allowed for a scheduled send), then the message service through the send
 * gatherer. `receipt.replayed` says an earlier request with the same
 * Idempotency-Key stored it.
 */
export async function sendSms(up: Upstreams, auth: AuthContext, request: SendRequest, options: SendOptions) {
  const device = await chooseDevice(up, auth, options.deviceId, {
    allowOffline: request.scheduledAt !== undefined,
    presence: options.presence,
  });
  const receipt = await up.sends.send(toSendRequest(auth, device.deviceId, request, options.idempotency));
  return { deviceId: device.deviceId, receipt };
}
