import { AppError, counter } from '@smsgw/platform';
import type { StrandedDeviceRow } from '../data/fleet.repository';
import { RELEASE_ATTEMPTS, type ReleaseReason } from '../domain/fleet';
import type { MessageService } from './message-service';

/** Messages released (and failed ones published) per transaction. */
const BATCH = 500;

const released = counter('message.fleet.released', 'Messages taken off a phone: opened to the fleet, or failed (pinned, phone removed)');

/**
 * Takes the messages no phone has taken off a phone that is offline past its
 * client's failover delay, or removed: the unpinned ones are opened to the
 * client's other phones, each with a `moved` attempt; with REMOVED the
 * pinned ones end `failed` / DEVICE_REMOVED, their `sms.failed` stored before
 * the commit. Then the client's phones are woken (after the commit, so that
 * their claim finds the messages). Idempotent: a message moves once.
 */
export async function releaseDevice(
  service: MessageService,
  req: { clientId: string; deviceId: string; reason: ReleaseReason },
): Promise<{ moved: number; failed: number }> {
  if (!req.deviceId) throw new AppError('INVALID_DEVICE_ID', { details: [{ field: 'device_id', code: 'INVALID_DEVICE_ID' }] });
  const attempt = RELEASE_ATTEMPTS[req.reason];
  const texts = { moved: attempt.message, failed: RELEASE_ATTEMPTS.REMOVED.message };
  let moved = 0;
  let failed = 0;
  // Messages opened to each client's fleet (a client with none is still woken: see below).
  const clients = new Map<string, number>(req.clientId ? [[req.clientId, 0]] : []);
  for (;;) {
    const rows = await service.fleet.releaseBatch(
      req.deviceId,
      req.clientId,
      attempt.code,
      texts,
      async (failedRows) => {
        await Promise.all(failedRows.map((row) => service.events.publish(row)));
      },
      BATCH,
    );
    for (const row of rows) {
      if (row.status === 'failed') failed++;
      else {
        moved++;
        clients.set(row.client_id, (clients.get(row.client_id) ?? 0) + 1);
      }
    }
    if (rows.length < BATCH) break;
  }
  // Every call wakes the client: a wake-up lost after an earlier call's commit is sent again.
  for (const [clientId, opened] of clients) service.wakeUps.wakeClient(clientId, opened);
  if (moved > 0) released.add(moved, { reason: req.reason, outcome: 'moved' });
  if (failed > 0) released.add(failed, { reason: req.reason, outcome: 'failed' });
  if (moved + failed > 0) service.log.info({ device_id: req.deviceId, reason: req.reason, moved, failed }, 'device released');
  return { moved, failed };
}

/** The devices whose due, unpinned messages wait on them alone: what the hub's failover sweep checks. */
export async function strandedDevices(service: MessageService, deviceIds: readonly string[] = []): Promise<StrandedDeviceRow[]> {
  return service.fleet.strandedDevices(deviceIds);
}
