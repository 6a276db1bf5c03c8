import type { Pool } from '@smsgw/platform';
import type { CancelOutcome, TimerState } from '../domain/timers';

export interface TimerRow {
  timer_id: string;
  key: string;
  fire_at: Date;
  subject: string;
  payload: Buffer;
  state: TimerState;
  run_at: Date;
  claimed_at: Date | null;
  attempts: number;
  created_at: Date;
  fired_at: Date | null;
  cancelled_at: Date | null;
  traceparent: string | null;
}

/**
 * The columns of a whole `TimerRow`, each named: a prepared statement that returned `*` would fail
 * on its connection once a migration adds a column (old replicas of a rolling upgrade run beside
 * the new one's migration). A `Record` so that the compiler refuses a field left out.
 */
const TIMER_FIELDS: Record<keyof TimerRow, true> = {
  timer_id: true,
  key: true,
  fire_at: true,
  subject: true,
  payload: true,
  state: true,
  run_at: true,
  claimed_at: true,
  attempts: true,
  created_at: true,
  fired_at: true,
  cancelled_at: true,
  traceparent: true,
};
const timerColumns = (alias: string) =>
  Object.keys(TIMER_FIELDS)
    .map((f) => `${alias}.${f}`)
    .join(', ');

export interface NewTimer {
  timerId: string;
  key: string;
  fireAt: Date;
  subject: string;
  payload: Buffer;
  /** The creating call's trace context, continued when the timer fires. */
  traceparent?: string;
}

export class TimerRepository {
  constructor(private readonly pool: Pool) {}

  /** Inserts the timer unless its key exists; either way returns the key's (first) timer. */
  async create(t: NewTimer): Promise<{ timer: TimerRow; created: boolean }> {
    const inserted = await this.pool.query<TimerRow>({
      name: 'timers-create',
      text: `INSERT INTO timers AS t (timer_id, key, fire_at, subject, payload, run_at, traceparent)
             VALUES ($1, $2, $3, $4, $5, $3, $6)
             ON CONFLICT (key) DO NOTHING
             RETURNING ${timerColumns('t')}`,
      values: [t.timerId, t.key, t.fireAt, t.subject, t.payload, t.traceparent || null],
    });
    if (inserted.rows[0]) return { timer: inserted.rows[0], created: true };
    const { rows } = await this.pool.query<TimerRow>('SELECT * FROM timers WHERE key = $1', [t.key]);
    // A key deleted by the clean-up between the two statements: rare enough to let the caller retry.
    if (!rows[0]) throw new Error('timer key vanished during creation');
    return { timer: rows[0], created: false };
  }

  /** Creates the timers whose keys do not exist yet (periodic jobs); returns how many were new. */
  async ensure(timers: NewTimer[]): Promise<number> {
    const { rowCount } = await this.pool.query(
      `INSERT INTO timers (timer_id, key, fire_at, subject, payload, run_at)
       SELECT t.timer_id, t.key, t.fire_at, t.subject, t.payload, t.fire_at
       FROM unnest($1::text[], $2::text[], $3::timestamptz[], $4::text[], $5::bytea[]) AS t(timer_id, key, fire_at, subject, payload)
       ON CONFLICT (key) DO NOTHING`,
      [
        timers.map((t) => t.timerId),
        timers.map((t) => t.key),
        timers.map((t) => t.fireAt),
        timers.map((t) => t.subject),
        timers.map((t) => t.payload),
      ],
    );
    return rowCount ?? 0;
  }

  /**
   * Cancels a pending timer that no replica has started to fire. A timer
   * being fired (claimed) is not cancelled: its publish may already be in
   * JetStream, and the caller is told `firing`.
   */
  async cancel(key: string): Promise<CancelOutcome> {
    const { rows } = await this.pool.query<{ outcome: CancelOutcome }>(
      `WITH hit AS (
         UPDATE timers SET state = 'cancelled', cancelled_at = now()
         WHERE key = $1 AND state = 'pending' AND claimed_at IS NULL
         RETURNING state
       )
       SELECT coalesce(
         (SELECT state FROM hit),
         (SELECT CASE WHEN state = 'pending' THEN 'firing' ELSE state END FROM timers WHERE key = $1),
         'not_found'
       ) AS outcome`,
      [key],
    );
    return rows[0]!.outcome;
  }

  /**
   * Takes up to `limit` due timers (oldest first) that no other replica
   * holds, and moves each one's next attempt a lease ahead: if this replica
   * dies before marking them fired, another one fires them after the lease.
   */
  async claimDue(limit: number, leaseMs: number): Promise<TimerRow[]> {
    const { rows } = await this.pool.query<TimerRow>({
      name: 'timers-claim',
      text: `UPDATE timers t
             SET run_at = now() + make_interval(secs => $2::double precision / 1000),
                 claimed_at = coalesce(t.claimed_at, now()),
                 attempts = t.attempts + 1
             FROM (
               SELECT timer_id FROM timers
               WHERE state = 'pending' AND run_at <= now()
               ORDER BY run_at
               LIMIT $1
               FOR UPDATE SKIP LOCKED
             ) due
             WHERE t.timer_id = due.timer_id
             RETURNING ${timerColumns('t')}`,
      values: [limit, leaseMs],
    });
    return rows;
  }

  /** The publishes were acknowledged by JetStream. */
  async markFired(timerIds: string[]): Promise<void> {
    if (timerIds.length === 0) return;
    await this.pool.query({
      name: 'timers-fired',
      text: `UPDATE timers SET state = 'fired', fired_at = now() WHERE timer_id = ANY($1::text[]) AND state = 'pending'`,
      values: [timerIds],
    });
  }

  /** The publishes failed: try again after `delayMs` rather than after the whole lease. */
  async retryLater(timerIds: string[], delayMs: number): Promise<void> {
    if (timerIds.length === 0) return;
    await this.pool.query(
      `UPDATE timers SET run_at = now() + make_interval(secs => $2::double precision / 1000)
       WHERE timer_id = ANY($1::text[]) AND state = 'pending'`,
      [timerIds, delayMs],
    );
  }

  /** Milliseconds until the next pending timer is due by the database's clock (negative: overdue); null when none. */
  async nextDueInMs(): Promise<number | null> {
    const { rows } = await this.pool.query<{ ms: number | null }>({
      name: 'timers-next',
      text: `SELECT (extract(epoch FROM (SELECT min(run_at) FROM timers WHERE state = 'pending') - now()) * 1000)::float8 AS ms`,
    });
    return rows[0]!.ms;
  }

  async findByKeys(keys: string[]): Promise<TimerRow[]> {
    const { rows } = await this.pool.query<TimerRow>('SELECT * FROM timers WHERE key = ANY($1::text[])', [keys]);
    return rows;
  }

  /** Deletes fired and cancelled timers older than `days`; returns how many. */
  async deleteDone(days: number): Promise<number> {
    const { rowCount } = await this.pool.query(
      `DELETE FROM timers WHERE state <> 'pending' AND coalesce(fired_at, cancelled_at) < now() - make_interval(days => $1)`,
      [days],
    );
    return rowCount ?? 0;
  }
}
