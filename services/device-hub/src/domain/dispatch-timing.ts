/**
 * The timing rules of a phone's session, pure: how long it waits when its queue is empty, how long
 * it waits for the phone's acknowledgement, how it retries after a failure and when it checks its
 * room again. The session (sessions/agent-session.ts, sessions/dispatch-pacer.ts) only sleeps them.
 */

/** Empty claims counted for a phone that just connected: its first idle wait is the longest (idleSweepMaxMs). */
export const IDLE_AT_CONNECT = 20;

/** Pings in a row a phone may leave unanswered; at the next ping its connection is cut. */
export const MAX_MISSED_PONGS = 2;

/**
 * The idle back-off: how long a phone whose queue was found empty `emptyClaims` times in a row
 * (before this one) sleeps until a wake-up or the next sweep. Twice as long each time, from
 * `sweepMs` up to `idleSweepMaxMs` (never below `sweepMs`), so that an idle fleet does not poll;
 * a wake-up or new work sets the count back to 0.
 */
export function idleWaitMs(dispatch: { sweepMs: number; idleSweepMaxMs: number }, emptyClaims: number): number {
  return Math.min(Math.max(dispatch.sweepMs, dispatch.idleSweepMaxMs), dispatch.sweepMs * 2 ** Math.min(emptyClaims, 20));
}

/** A wait spread by ±20% (`random` in [0, 1)), so that phones connected together do not claim together. */
export function jittered(ms: number, random: number = Math.random()): number {
  return ms * (0.8 + random * 0.4);
}

/** The wait after a failed claim or a failed check of the room: 1 to 2 s (`random` in [0, 1)). */
export function retryWaitMs(random: number = Math.random()): number {
  return 1000 + random * 1000;
}

/**
 * The ack deadline: how long the hub waits for the phone's `ack` of an SMS it handed, shortly
 * before the claim's lease ends (2 s before it), at least 1 s. Past it the SMS counts as not
 * acknowledged and its lease runs out.
 */
export function ackDeadlineMs(leaseMs: number): number {
  return Math.max(1000, leaseMs - 2000);
}

/** The dispatch pause between two SMS of one phone: uniform in [min, max]. */
export function pacingDelay(minMs: number, maxMs: number, random: () => number = Math.random): number {
  return Math.round(minMs + (Math.max(minMs, maxMs) - minMs) * random());
}

/** The wait of a phone without room: until room comes (5 ms past it), at most `recheckMs`. */
export function roomWaitMs(waitMs: number, recheckMs: number): number {
  return Math.min(waitMs + 5, recheckMs);
}

/** The wait of a phone whose SIMs are all quarantined: until the first probe is due (5 ms past it), at most `sweepMs`. */
export function probeWaitMs(sweepMs: number, msUntilProbe: number): number {
  return Math.min(sweepMs, msUntilProbe + 5);
}

/** The wait of a phone whose SIMs with room are all in their pause after an SMS: 5 ms past the shortest. */
export function holdWaitMs(holdMs: number): number {
  return holdMs + 5;
}
