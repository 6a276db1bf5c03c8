/** Messages ahead of a new one counted one by one; past this, the device's queued total stands in. */
export const EXACT_UP_TO = 100;

/** What the claim orders messages by. */
export interface QueuedMessage {
  message_id: string;
  device_id: string;
  mode: string;
  priority: number;
  due_at: Date;
}

/**
 * For each row, how many of the other rows (stored in the same statement)
 * the claim takes before it: same device and mode, due no later, then
 * priority 1 first, then the oldest due, then the smallest id.
 */
export function aheadWithin(rows: QueuedMessage[]): number[] {
  const groups = new Map<string, number[]>();
  rows.forEach((r, i) => {
    const key = `${r.device_id}\u0000${r.mode}`;
    const group = groups.get(key);
    if (group) group.push(i);
    else groups.set(key, [i]);
  });
  const due = rows.map((r) => r.due_at.getTime());
  const out = new Array<number>(rows.length).fill(0);
  for (const group of groups.values()) {
    // In claim order, a row waits for those before it that are due no later.
    group.sort(
      (a, b) => rows[a]!.priority - rows[b]!.priority || due[a]! - due[b]! || (rows[a]!.message_id < rows[b]!.message_id ? -1 : 1),
    );
    group.forEach((i, k) => {
      let ahead = 0;
      for (let j = 0; j < k; j++) if (due[group[j]!]! <= due[i]!) ahead++;
      out[i] = ahead;
    });
  }
  return out;
}
