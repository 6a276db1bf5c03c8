import type { BatchRequest } from '../domain/send-request';
import type { AuthContext } from '../http/context';
import { toSendBatchRequest } from '../mappers/sms.mapper';
import { spreadOverDevices } from './choose-device.use-case';
import { countedSend } from './key-quota';
import type { SendOptions } from './send-sms.use-case';
import type { Upstreams } from './upstreams';

/**
 * A bulk or personalised batch: its messages spread over the devices, stored
 * in one call; pinned to the X-Device-ID device unless `"failover": true`.
 * Each of its messages counts against its key's daily quota (all or none).
 */
export async function sendBatch(up: Upstreams, auth: AuthContext, request: BatchRequest, options: SendOptions) {
  const deviceIds = await spreadOverDevices(
    up,
    auth,
    options.deviceId,
    request.items.map((i) => i.sim),
    options.presence,
  );
  const pinned = options.deviceId !== undefined && !request.failover;
  return countedSend(
    up,
    auth,
    request.items.length,
    () => up.messages.sendBatch(toSendBatchRequest(auth, deviceIds, pinned, request, options.idempotency)),
    (batch) => batch.replayed,
  );
}
