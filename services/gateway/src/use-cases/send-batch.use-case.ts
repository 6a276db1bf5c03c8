import type { BatchRequest } from '../domain/send-request';
import type { AuthContext } from '../http/context';
import { toSendBatchRequest, type IdempotencyFields } from '../mappers/sms.mapper';
import { spreadOverDevices } from './choose-device.use-case';
import type { Upstreams } from './upstreams';

/** A bulk or personalised batch: its messages spread over the devices, stored in one call. */
export async function sendBatch(
  up: Upstreams,
  auth: AuthContext,
  request: BatchRequest,
  deviceId: string | undefined,
  idempotency: IdempotencyFields | undefined,
) {
  const deviceIds = await spreadOverDevices(up, auth, deviceId, request.items.length);
  return up.messages.sendBatch(toSendBatchRequest(auth, deviceIds, request, idempotency));
}
