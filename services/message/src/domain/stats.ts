/** Messages of one UTC day of created_at, by status (live rows and rollups added together). */
export interface DayCounts {
  day: string;
  queued: number;
  sent: number;
  delivered: number;
  failed: number;
  cancelled: number;
  /** SMS received that day (by UTC day of received_at). */
  received: number;
}

export interface StatsSummary {
  totalSent: number;
  delivered: number;
  failed: number;
  pending: number;
  deliveryRate: number;
  /** SMS the client's phones received over the period. */
  received: number;
  byDay: { date: string; sent: number; delivered: number; failed: number; received: number }[];
}

/** Every message that was not cancelled counts as sent (docs/contributors/design.md, statistics). */
const totalSentOf = (c: Omit<DayCounts, 'day'>) => c.queued + c.sent + c.delivered + c.failed;

/** delivered / total_sent in percent, two decimals; 0 when nothing was sent. */
export function deliveryRate(delivered: number, totalSent: number): number {
  return totalSent === 0 ? 0 : Math.round((delivered * 10_000) / totalSent) / 100;
}

/** The figures of a period from its days, which must be sorted by day. */
export function summarize(days: DayCounts[]): StatsSummary {
  const sum = { queued: 0, sent: 0, delivered: 0, failed: 0, cancelled: 0, received: 0 };
  for (const d of days) {
    sum.queued += d.queued;
    sum.sent += d.sent;
    sum.delivered += d.delivered;
    sum.failed += d.failed;
    sum.cancelled += d.cancelled;
    sum.received += d.received;
  }
  const totalSent = totalSentOf(sum);
  return {
    totalSent,
    delivered: sum.delivered,
    failed: sum.failed,
    pending: sum.queued + sum.sent,
    deliveryRate: deliveryRate(sum.delivered, totalSent),
    received: sum.received,
    byDay: days.map((d) => ({ date: d.day, sent: totalSentOf(d), delivered: d.delivered, failed: d.failed, received: d.received })),
  };
}
