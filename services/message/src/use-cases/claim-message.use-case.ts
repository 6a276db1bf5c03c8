import { AppError, counter, endSpan, openText, startSpanInTrace, untraced } from '@smsgw/platform';
import type { ClaimedFields, MessageRow, Mode } from '../domain/message-row';
import { reportedSim, slotsWithRoom } from '../domain/sim';
import type { MessageService } from './message-service';

const claims = counter(
  'message.claims',
  'Messages handed to a phone (or the test-mode simulator), first claims and claims after a lease expired',
);

/**
 * The next due message of a device (or, in test mode without a device, of
 * the simulated device) under a lease of `leaseMs` (30 s when 0), with the
 * text the phone sends: an OTP's in full, opened from its seal. Given the
 * device's client, a live claim may also take a message of the client's
 * fleet, which then becomes this device's. `simsWithRoom` (the phone's SIM
 * slots with room; empty: any) leaves out messages that asked for another.
 */
export async function claimNext(
  service: MessageService,
  deviceId: string,
  leaseMs: number,
  mode: Mode,
  clientId = '',
  simsWithRoom: number[] = [],
): Promise<{ row: MessageRow; text: string } | undefined> {
  if (mode === 'live' && !deviceId)
    throw new AppError('INVALID_DEVICE_ID', { details: [{ field: 'device_id', code: 'INVALID_DEVICE_ID' }] });
  const row = await service.queue.claimNext(deviceId, leaseMs || 30_000, mode, clientId, slotsWithRoom(simsWithRoom));
  if (!row) return undefined;
  // A claim after the first is a lease that ran out before the phone acknowledged.
  claims.add(1, { mode, claim: row.claim_count > 1 ? 'after_lease_expiry' : 'first' });
  // An OTP's SMS goes to the phone in full; everywhere else its code stays masked.
  const text = row.otp_sealed_text ? openText(service.config.otp.sealKey, row.message_id, row.otp_sealed_text) : row.body;
  return { row, text };
}

/**
 * The phone has the message in its outbox (at `at`, now when absent or
 * unreadable): it is no longer offered nor cancellable. `sim` (1 to 8) is
 * the slot the hub told the phone to use; 0 keeps the message's own.
 */
export async function acceptMessage(
  service: MessageService,
  messageId: string,
  deviceId: string,
  at: string,
  sim = 0,
): Promise<{ status: MessageRow['status']; accepted: boolean }> {
  const when = at && !Number.isNaN(Date.parse(at)) ? new Date(at) : new Date();
  const outcome = await service.messages.markAccepted(messageId, deviceId, when, reportedSim(sim));
  if (!outcome) throw new AppError('MESSAGE_NOT_FOUND');
  return outcome;
}

/** One phone's claim of a ClaimMany call. */
export interface ClaimRequest {
  deviceId: string;
  clientId: string;
  simsWithRoom?: readonly number[];
}

/**
 * The live claims of many phones at once (a hub replica's claims of a moment), each as `claimNext`
 * answers it, in the order given. A device named twice is refused: its claims would take two
 * messages under one lease.
 */
export async function claimMany(
  service: MessageService,
  requests: readonly ClaimRequest[],
  leaseMs: number,
): Promise<({ row: ClaimedFields; text: string } | undefined)[]> {
  const devices = new Set<string>();
  for (const [i, r] of requests.entries()) {
    if (!r.deviceId || !r.clientId || devices.has(r.deviceId))
      throw new AppError('VALIDATION_ERROR', { details: [{ field: `claims[${i}]`, code: 'VALIDATION_ERROR' }] });
    devices.add(r.deviceId);
  }
  // Claims make no span (most find nothing); the SMS's trace goes on from the claimed message.
  const rows = await untraced(() =>
    service.queue.claimMany(
      requests.map((r) => ({ deviceId: r.deviceId, clientId: r.clientId, sims: slotsWithRoom(r.simsWithRoom as number[]) })),
      leaseMs || 30_000,
    ),
  );
  return rows.map((row) => {
    if (!row) return undefined;
    claims.add(1, { mode: 'live', claim: row.claim_count > 1 ? 'after_lease_expiry' : 'first' });
    const text = row.otp_sealed_text ? openText(service.config.otp.sealKey, row.message_id, row.otp_sealed_text) : row.body;
    return { row, text };
  });
}

/**
 * `acceptMessage` for many acknowledgements at once, each recorded in a span of its SMS's trace
 * (`traceparent`); an unknown message (or another device's) answers not accepted, status ''.
 */
export async function acceptMany(
  service: MessageService,
  requests: readonly { messageId: string; deviceId: string; at: string; sim?: number; traceparent?: string }[],
): Promise<{ status: MessageRow['status'] | ''; accepted: boolean }[]> {
  const seen = new Set<string>();
  const unique = requests.filter((r) => !seen.has(r.messageId) && seen.add(r.messageId));
  const spans = unique.map((r) => startSpanInTrace('message.accept', r.traceparent ?? ''));
  spans.forEach((span, i) => span.setAttribute('smsgw.message_id', unique[i]!.messageId));
  let outcomes: Awaited<ReturnType<MessageService['messages']['markAcceptedMany']>>;
  try {
    // The batch's statement makes no span: each acknowledgement has its own, in its SMS's trace.
    outcomes = await untraced(() =>
      service.messages.markAcceptedMany(
        unique.map((r) => ({
          messageId: r.messageId,
          deviceId: r.deviceId,
          at: r.at && !Number.isNaN(Date.parse(r.at)) ? new Date(r.at) : new Date(),
          sim: reportedSim(r.sim ?? 0),
        })),
      ),
    );
  } catch (err) {
    spans.forEach((span) => endSpan(span, 'NOT_RECORDED'));
    throw err;
  }
  spans.forEach((span) => endSpan(span));
  const byId = new Map(unique.map((r, i) => [r.messageId, outcomes[i]]));
  return requests.map((r) => byId.get(r.messageId) ?? { status: '', accepted: false });
}
