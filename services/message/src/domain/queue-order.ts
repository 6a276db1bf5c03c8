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

/** The head of a queue as a claim compares it. */
export interface QueueHead {
  message_id: string;
  priority: number;
  due_at: Date;
}

/** Whether `a` is claimed before `b`: priority 1 first, then the oldest due, then the smallest id. */
export function claimedBefore(a: QueueHead, b: QueueHead): boolean {
  if (a.priority !== b.priority) return a.priority < b.priority;
  const [da, db] = [a.due_at.getTime(), b.due_at.getTime()];
  if (da !== db) return da < db;
  return a.message_id < b.message_id;
}

/** A message of a client's fleet that one of the claiming phones may take. */
export interface FleetCandidate extends QueueHead {
  client_id: string;
  /** The phone it failed on: never handed back to it. */
  avoid_device_id: string | null;
  requested_sim: number;
}

/** One phone's claim in a batch of claims. */
export interface BatchedClaim {
  deviceId: string;
  clientId: string;
  /** Its SIM slots with room; empty: any message. */
  sims: readonly number[];
}

/**
 * What each claim of a batch takes: the head of its own queue, or a message of its client's
 * fleet that goes before it (one the phone may take: not the one it failed on, a SIM it has room
 * on), each fleet message going to one claim only, the claims served in the order given.
 * Returns the message id per claim (undefined: nothing).
 */
export function assignClaims(
  claims: readonly BatchedClaim[],
  own: ReadonlyMap<number, QueueHead>,
  fleet: readonly FleetCandidate[],
): (string | undefined)[] {
  const pool = [...fleet].sort((a, b) => (claimedBefore(a, b) ? -1 : 1));
  const taken = new Set<string>();
  return claims.map((claim, i) => {
    const head = own.get(i);
    const candidate = pool.find(
      (f) =>
        !taken.has(f.message_id) &&
        f.client_id === claim.clientId &&
        f.avoid_device_id !== claim.deviceId &&
        (f.requested_sim === 0 || claim.sims.length === 0 || claim.sims.includes(f.requested_sim)),
    );
    if (candidate && (!head || claimedBefore(candidate, head))) {
      taken.add(candidate.message_id);
      return candidate.message_id;
    }
    return head?.message_id;
  });
}
