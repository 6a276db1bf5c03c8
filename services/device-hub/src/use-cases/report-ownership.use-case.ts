import { AppError, counter, type PromiseClient } from '@smsgw/platform';
import type { message } from '@smsgw/proto';

export const reportsRefused = counter(
  'hub.reports_refused',
  'Phone reports refused (acknowledged, never stored) because the message was not handed to that device, by status',
);

/**
 * Whether the message was handed to this device, so that its phone may report
 * on it. The message service is the authority (each message records its
 * device): the answer survives a hub restart and a reconnect to another
 * replica, days later, as the phone's outbox resends. A message of another
 * client is not found; one of another device of the same client has another
 * `device_id`. Any other failure (the message service unreachable) is thrown:
 * the report is then neither stored nor acknowledged, and the phone sends it
 * again.
 */
export async function deviceOwnsMessage(
  deps: { messages: Pick<PromiseClient<message.MessageServiceClient>, 'getMessage'> },
  device: { device_id: string; client_id: string },
  messageId: string,
): Promise<boolean> {
  try {
    // Phones carry only live messages: test-mode ones are the hub's simulator's.
    const found = await deps.messages.getMessage({ clientId: device.client_id, messageId, mode: 'MODE_LIVE' });
    return found.deviceId === device.device_id;
  } catch (err) {
    if (err instanceof AppError && (err.code === 'MESSAGE_NOT_FOUND' || err.code === 'VALIDATION_ERROR')) return false;
    throw err;
  }
}
