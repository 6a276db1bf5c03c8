// The comparison of a phone's digest (protocol 7) with the service's own state: what each listed
// SMS needs to reach what the phone really did, and which messages the phone was given but never
// had. Pure: the use case reads the rows and applies what this decides.
import type { DeviceDigest, DigestEntry } from '@smsgw/platform';
import type { MessageStatus, ReportedStatus } from './message-status';

/** How a digest repaired a message (the metric's label, and what its attempts show). */
export type RepairKind = 'report_applied' | 'sent_corrected' | 'requeued';

/** A report the phone made but the service never got, rebuilt from the digest. */
export interface RebuiltReport {
  status: ReportedStatus;
  /** The phone's time, as its report would have carried it (so its event gets the same id). */
  at: string;
  error?: { code: string; message: string };
  sim?: number;
}

export interface EntryRepair {
  kind: Exclude<RepairKind, 'requeued'>;
  reports: RebuiltReport[];
}

/** What the rule needs of a message row. */
export interface ServerMessage {
  message_id: string;
  device_id: string;
  status: MessageStatus;
  accepted_at: Date | null;
  sent_at: Date | null;
  /** What digests repaired on it already (null: nothing). */
  repairs?: readonly unknown[] | null;
}

export interface ReconcileSettings {
  /** An SMS whose last step on the phone is more recent than this (before the digest) is left alone: its report may still be on its way. */
  graceMs: number;
  /** How far the two clocks may still disagree once the phone's is corrected by the frame's transit. */
  clockMarginMs: number;
}

/** The phone's clock minus the hub's, as well as one frame tells it (its transit counts as skew). */
export function clockOffsetMs(digest: Pick<DeviceDigest, 'at' | 'received_at'>): number {
  return Date.parse(digest.at) - Date.parse(digest.received_at);
}

/**
 * The reports a listed SMS is missing, or undefined when the service's state already says what
 * the phone did (or more), or when it is too soon to tell. What the phone did wins, as for any
 * report: a cancelled message it sent is corrected too.
 */
export function repairFor(entry: DigestEntry, row: ServerMessage, digestAt: string, settings: ReconcileSettings): EntryRepair | undefined {
  const last = Math.max(...[entry.accepted_at, entry.sent_at, entry.delivered_at, entry.failed_at].filter(isDefined).map(Date.parse));
  if (Date.parse(digestAt) - last < settings.graceMs) return undefined;
  const open = row.status === 'queued' || row.status === 'cancelled';
  const sim = entry.sim !== undefined ? { sim: entry.sim } : {};
  const sent: RebuiltReport[] = entry.sent_at && open ? [{ status: 'sent', at: entry.sent_at, ...sim }] : [];
  const kind = open && entry.sent_at ? 'sent_corrected' : 'report_applied';
  // A delivery report that overtook a lost `sent` one: the message is delivered, but with the
  // delivery's time as its sent_at, and its sms.sent was never published. Once only.
  if (row.status === 'delivered' && entry.sent_at && row.sent_at && row.sent_at.getTime() !== Date.parse(entry.sent_at)) {
    return (row.repairs ?? []).length === 0
      ? { kind: 'report_applied', reports: [{ status: 'sent', at: entry.sent_at, ...sim }] }
      : undefined;
  }
  switch (entry.state) {
    case 'sent':
      return open && entry.sent_at ? { kind: 'sent_corrected', reports: sent } : undefined;
    case 'delivered':
      if (!entry.delivered_at || !(open || row.status === 'sent')) return undefined;
      return { kind, reports: [...sent, { status: 'delivered', at: entry.delivered_at, ...sim }] };
    case 'failed':
      if (!entry.failed_at || !(open || row.status === 'sent')) return undefined;
      return {
        kind,
        reports: [...sent, { status: 'failed', at: entry.failed_at, ...(entry.error ? { error: entry.error } : {}), ...sim }],
      };
    default:
      return undefined;
  }
}

/**
 * The messages the service believes this phone holds (acknowledged, nothing reported) that the
 * digest frame proves it never had: acknowledged well inside the frame's span of time, with the
 * clocks set against each other and a margin, and not listed. Only then is it certain that the
 * phone never sent it, so that it may go back to the queue without being sent twice.
 */
export function neverHad(digest: DeviceDigest, held: readonly ServerMessage[], settings: ReconcileSettings): ServerMessage[] {
  const listed = new Set(digest.entries.map((entry) => entry.message_id));
  const offset = clockOffsetMs(digest);
  const from = Date.parse(digest.covers_from) - offset + settings.clockMarginMs;
  const to = Date.parse(digest.covers_to) - offset - settings.clockMarginMs;
  return held.filter(
    (row) =>
      row.device_id === digest.device_id &&
      row.status === 'queued' &&
      row.sent_at === null &&
      row.accepted_at !== null &&
      row.accepted_at.getTime() >= from &&
      row.accepted_at.getTime() <= to &&
      !listed.has(row.message_id),
  );
}

function isDefined<T>(value: T | undefined): value is T {
  return value !== undefined;
}
