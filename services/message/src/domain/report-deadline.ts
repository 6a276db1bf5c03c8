// When a `sent` message has waited long enough for its delivery report to be shown as "sent, no
// report" (docs/api/sending.md). Its status stays `sent`: a report that still comes moves it on.
import type { MessageRow } from './message-row';

/** The validity SMS centres commonly give a message when the sender sets none. */
export const DEFAULT_VALIDITY_MS = 72 * 3600_000;
/** Past the validity, how long a delivery report may still be on its way. */
export const NO_REPORT_MARGIN_MS = 3600_000;

type Deadline = Pick<MessageRow, 'status' | 'sent_at' | 'expires_at' | 'created_at' | 'scheduled_at'>;

/**
 * The time after which a `sent` message with no delivery report is "sent, no report": its
 * sent_at, plus its validity (its ttl when it has one, measured from its creation or scheduled
 * time to its expires_at; else 72 hours), plus an hour. Undefined for a message not `sent`.
 */
export function reportDeadline(row: Deadline): Date | undefined {
  if (row.status !== 'sent' || !row.sent_at) return undefined;
  const start = (row.scheduled_at ?? row.created_at).getTime();
  const validity = row.expires_at ? Math.max(0, row.expires_at.getTime() - start) : DEFAULT_VALIDITY_MS;
  return new Date(row.sent_at.getTime() + validity + NO_REPORT_MARGIN_MS);
}

/** True when a `sent` message is past its report deadline: shown as "sent, no report". */
export function noReport(row: Deadline, now: Date): boolean {
  const deadline = reportDeadline(row);
  return deadline !== undefined && now >= deadline;
}
