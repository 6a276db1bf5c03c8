export const MESSAGE_STATUSES = ['queued', 'sent', 'delivered', 'failed', 'cancelled'] as const;
export type MessageStatus = (typeof MESSAGE_STATUSES)[number];

export type ReportedStatus = 'sent' | 'delivered' | 'failed';

/**
 * The statuses from which a phone's report may move a message. `delivered`
 * may arrive before `sent` (reports can overtake each other), and `failed`
 * may come straight from `queued` when the phone refuses a message before
 * the network sees it. What the phone did wins over a cancel: a message
 * cancelled while a phone already had it (its acknowledgement arrived after
 * the lease ran out) moves on to what the phone reports.
 */
export const ALLOWED_FROM: Record<ReportedStatus, readonly MessageStatus[]> = {
  sent: ['queued', 'cancelled'],
  delivered: ['queued', 'sent', 'cancelled'],
  failed: ['queued', 'sent', 'cancelled'],
};

export type ReportOutcome = 'apply' | 'duplicate' | 'stale';

/** What a report of `reported` means for a message now in `current`. */
export function reportOutcome(current: MessageStatus, reported: ReportedStatus): ReportOutcome {
  if (current === reported) return 'duplicate';
  return ALLOWED_FROM[reported].includes(current) ? 'apply' : 'stale';
}

export const PRIORITY_LABELS = { 1: 'very_high', 2: 'high', 3: 'normal', 4: 'low', 5: 'very_low' } as const;
