// Over 300 lines: the SQL of a delivery's whole life (events in, deliveries added, attempts claimed
// and leased, outcomes, postponed retries) on the same tables and one row shape (JOB_COLUMNS, toJob).
import { inTransaction, type Pool } from '@smsgw/platform';
import type { Mode } from './endpoint.repository';

/** One attempt about to be made: everything needed to send it without another query. */
export interface DeliveryJob {
  deliveryId: string;
  eventId: string;
  kind: string;
  clientId: string;
  endpointId: string | null;
  url: string;
  /** The event's `data`, as JSON text. */
  data: string;
  /** The number of the attempt to make (1 for the first). */
  attempt: number;
  /** The endpoint's secret; null for a message's own URL (signed with the client's signing secret). */
  secret: string | null;
  /** The event's trace: each attempt is a span of it. */
  traceparent: string | null;
  /** Its endpoint takes events in batches (as it is now): the attempt goes in a batch's POST. */
  batch: boolean;
}

export interface NewEvent {
  eventId: string;
  clientId: string;
  mode: Mode;
  kind: string;
  /** The event's `data`, as JSON text: the envelope is built at each attempt, with the attempt's `timestamp`. */
  data: string;
  traceparent: string | null;
  destinations: NewDestination[];
}

/** One destination of a new event: an endpoint (with its secret and form) or a message's URL. */
export interface NewDestination {
  deliveryId: string;
  key: string;
  url: string;
  endpointId: string | null;
  secret: string | null;
  batch: boolean;
}

/** What an attempt ended with, as the delivery log and the delivery's state record it. */
export interface AttemptOutcome {
  deliveryId: string;
  attempt: number;
  attemptedAt: Date;
  httpStatus: number | null;
  latencyMs: number;
  error: string | null;
  state: 'pending' | 'succeeded' | 'failed';
  /** When `pending`: when the next attempt is due. */
  nextAttemptAt: Date | null;
  /** The batch whose POST this attempt was part of; null for an event posted alone. */
  batchId: string | null;
}

/**
 * The end of an `INSERT INTO events` that stores an event before its deliveries: an event stored
 * before (redelivered, replayed) is locked and left as it is (`WHERE false` updates nothing). A
 * delivery has no foreign key to its event (migration 007): this lock keeps the retention from
 * deleting the event until the deliveries are committed, and then its next statement sees them.
 */
const LOCK_STORED_EVENT = `ON CONFLICT (event_id) DO UPDATE SET kind = excluded.kind WHERE false`;

/** The columns of a `DeliveryJob`, selected from `deliveries d JOIN events e`. */
/** An endpoint's delivery goes to the endpoint's URL as it is now (it may have changed since the first attempt). */
const JOB_COLUMNS = `d.delivery_id, d.event_id, e.kind, d.client_id, d.endpoint_id,
  COALESCE((SELECT url FROM endpoints WHERE endpoint_id = d.endpoint_id), d.url) AS url, e.data, e.traceparent, d.attempts + 1 AS attempt,
  (SELECT secret FROM endpoints WHERE endpoint_id = d.endpoint_id AND deleted_at IS NULL AND enabled) AS secret,
  (SELECT batch FROM endpoints WHERE endpoint_id = d.endpoint_id) IS TRUE AS batch`;

interface JobRow {
  delivery_id: string;
  event_id: string;
  kind: string;
  client_id: string;
  endpoint_id: string | null;
  url: string;
  data: string;
  traceparent: string | null;
  attempt: number;
  secret: string | null;
  batch: boolean;
}

const toJob = (r: JobRow): DeliveryJob => ({
  deliveryId: r.delivery_id,
  eventId: r.event_id,
  kind: r.kind,
  clientId: r.client_id,
  endpointId: r.endpoint_id,
  url: r.url,
  data: r.data,
  traceparent: r.traceparent,
  attempt: r.attempt,
  secret: r.secret,
  batch: r.batch,
});

/**
 * The settings of the webhook service's connections. Its statements find rows by key or through a
 * partial index, and the busy ones are prepared. A prepared statement keeps the plan it made
 * first: made while `deliveries` was small, the outcomes' plan read the table from end to end as
 * it grew (22 ms a call at 40,000 rows on a scratch schema) until the next ANALYZE. Without
 * sequential scans where an index serves, a plan reads by key whatever the table held when it
 * was made; a statement no index serves still reads the table.
 */
export const CONNECTION_SETTINGS = { enable_seqscan: 'off' } as const;

/**
 * The deliveries as work: stored with their event and leased for a first
 * attempt, claimed again for a retry or when overdue, their leases renewed,
 * their outcomes recorded. The delivery log as read by clients is
 * `delivery-log.repository.ts`; the alerts of dropped deliveries are
 * `alert.repository.ts`.
 */
export class DeliveryRepository {
  constructor(
    private readonly pool: Pool,
    private readonly leaseMs: number,
  ) {}

  /**
   * Stores a batch of events with their deliveries, leased to the caller for
   * their first attempt, in one transaction. An event seen before (JetStream
   * redelivered it) keeps its deliveries: those still waiting for a first
   * attempt whose lease ran out are leased again and returned with the new.
   */
  async recordEvents(events: readonly NewEvent[]): Promise<DeliveryJob[]> {
    if (events.length === 0) return [];
    const d = events.flatMap((e) => e.destinations.map((dest) => ({ e, dest })));
    // Each event once (its first copy): a statement may lock a row only once. In id order, so that
    // two batches redelivered together lock their events in the same order.
    const seen = new Set<string>();
    const unique = events
      .filter((e) => !seen.has(e.eventId) && seen.add(e.eventId))
      .sort((a, b) => (a.eventId < b.eventId ? -1 : a.eventId > b.eventId ? 1 : 0));
    return inTransaction(this.pool, async (tx) => {
      // An event stored before (redelivered) is locked, not rewritten: the retention, which deletes
      // deliveries itself (no foreign key), waits for this transaction and then sees its deliveries.
      await tx.query({
        name: 'events-insert',
        text: `INSERT INTO events (event_id, client_id, mode, kind, data, traceparent)
               SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[])
               ${LOCK_STORED_EVENT}`,
        values: [
          unique.map((e) => e.eventId),
          unique.map((e) => e.clientId),
          unique.map((e) => e.mode),
          unique.map((e) => e.kind),
          unique.map((e) => e.data),
          unique.map((e) => e.traceparent),
        ],
      });
      const inserted = await tx.query<{ delivery_id: string }>({
        name: 'deliveries-insert',
        text: `INSERT INTO deliveries (delivery_id, event_id, client_id, endpoint_id, url, destination, lease_until, next_attempt_at)
               SELECT id, ev, cl, ep, url, dest, now() + $7 * interval '1 millisecond', now()
               FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[]) AS t(id, ev, cl, ep, url, dest)
               ON CONFLICT (event_id, destination) WHERE replay_of IS NULL DO NOTHING
               RETURNING delivery_id`,
        values: [
          d.map((x) => x.dest.deliveryId),
          d.map((x) => x.e.eventId),
          d.map((x) => x.e.clientId),
          d.map((x) => x.dest.endpointId),
          d.map((x) => x.dest.url),
          d.map((x) => x.dest.key),
          this.leaseMs,
        ],
      });
      const fresh = new Set(inserted.rows.map((r) => r.delivery_id));
      const jobs: DeliveryJob[] = d
        .filter((x) => fresh.has(x.dest.deliveryId))
        .map(({ e, dest }) => ({
          deliveryId: dest.deliveryId,
          eventId: e.eventId,
          kind: e.kind,
          clientId: e.clientId,
          endpointId: dest.endpointId,
          url: dest.url,
          data: e.data,
          traceparent: e.traceparent,
          attempt: 1,
          secret: dest.secret,
          batch: dest.batch,
        }));
      if (fresh.size < d.length) {
        const again = await tx.query<JobRow>(
          `UPDATE deliveries d SET lease_until = now() + $2 * interval '1 millisecond'
           FROM events e
           WHERE e.event_id = d.event_id AND d.event_id = ANY($1) AND d.replay_of IS NULL AND d.state = 'pending' AND d.attempts = 0
             AND d.lease_until < now()
           RETURNING ${JOB_COLUMNS}`,
          [[...new Set(d.filter((x) => !fresh.has(x.dest.deliveryId)).map((x) => x.e.eventId))], this.leaseMs],
        );
        jobs.push(...again.rows.map(toJob));
      }
      return jobs;
    });
  }

  /**
   * A delivery of an event stored now for one destination, leased for its
   * first attempt: a test event, or a replay of `replayOf`.
   */
  async addDelivery(
    event: { eventId: string; clientId: string; mode: Mode; kind: string; data: string; traceparent: string | null },
    dest: NewDestination,
    replayOf: string | null,
  ): Promise<DeliveryJob> {
    await inTransaction(this.pool, async (tx) => {
      await tx.query(
        `INSERT INTO events (event_id, client_id, mode, kind, data, traceparent) VALUES ($1, $2, $3, $4, $5, $6) ${LOCK_STORED_EVENT}`,
        [event.eventId, event.clientId, event.mode, event.kind, event.data, event.traceparent],
      );
      await tx.query(
        `INSERT INTO deliveries (delivery_id, event_id, client_id, endpoint_id, url, destination, replay_of, lease_until, next_attempt_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, now() + $8 * interval '1 millisecond', now())`,
        [dest.deliveryId, event.eventId, event.clientId, dest.endpointId, dest.url, dest.key, replayOf, this.leaseMs],
      );
    });
    return {
      deliveryId: dest.deliveryId,
      eventId: event.eventId,
      kind: event.kind,
      clientId: event.clientId,
      endpointId: dest.endpointId,
      url: dest.url,
      data: event.data,
      traceparent: event.traceparent,
      attempt: 1,
      secret: dest.secret,
      batch: dest.batch,
    };
  }

  /**
   * Leases a pending delivery for attempt `attempt` (a retry timer fired).
   * Nothing when that attempt was made already, the delivery ended, or another
   * replica holds it.
   */
  async claim(deliveryId: string, attempt: number): Promise<DeliveryJob | undefined> {
    const { rows } = await this.pool.query<JobRow>(
      `UPDATE deliveries d SET lease_until = now() + $3 * interval '1 millisecond'
       FROM events e
       WHERE d.delivery_id = $1 AND e.event_id = d.event_id AND d.state = 'pending' AND d.attempts = $2 - 1
         AND (d.lease_until IS NULL OR d.lease_until < now())
       RETURNING ${JOB_COLUMNS}`,
      [deliveryId, attempt, this.leaseMs],
    );
    return rows[0] && toJob(rows[0]);
  }

  /**
   * Leases, for attempt `attempt`, the deliveries of a batch whose retry timer fired, in one
   * statement: those still waiting for that attempt and held by nobody, in the order they were
   * made (their events' order).
   */
  async claimMany(deliveryIds: readonly string[], attempt: number): Promise<DeliveryJob[]> {
    if (deliveryIds.length === 0) return [];
    const { rows } = await this.pool.query<JobRow>(
      `UPDATE deliveries d SET lease_until = now() + $3 * interval '1 millisecond'
       FROM events e
       WHERE d.delivery_id = ANY($1) AND e.event_id = d.event_id AND d.state = 'pending' AND d.attempts = $2 - 1
         AND (d.lease_until IS NULL OR d.lease_until < now())
       RETURNING ${JOB_COLUMNS}`,
      [deliveryIds, attempt, this.leaseMs],
    );
    return rows.map(toJob).sort((a, b) => (a.deliveryId < b.deliveryId ? -1 : 1));
  }

  /**
   * Of `deliveryIds`, those attempt `attempt`'s fire must still take: pending at an earlier attempt
   * (the one before is still being recorded, its timer being created first, or its replica died),
   * or at the one before and free (recorded since a claim found it not yet there). With its event,
   * as `claim` reads it: one without could never be claimed.
   */
  async awaitingAttempt(deliveryIds: readonly string[], attempt: number): Promise<string[]> {
    if (deliveryIds.length === 0) return [];
    const { rows } = await this.pool.query<{ delivery_id: string }>(
      `SELECT d.delivery_id FROM deliveries d JOIN events e ON e.event_id = d.event_id
       WHERE d.delivery_id = ANY($1) AND d.state = 'pending'
         AND (d.attempts < $2 - 1 OR (d.attempts = $2 - 1 AND (d.lease_until IS NULL OR d.lease_until < now())))`,
      [deliveryIds, attempt],
    );
    return rows.map((r) => r.delivery_id);
  }

  /**
   * Leases pending deliveries whose attempt is overdue by more than `graceMs`
   * and that nobody holds: the safety net for a replica that died mid-attempt
   * and for a retry timer that could not be created.
   */
  async claimOverdue(graceMs: number, limit: number): Promise<DeliveryJob[]> {
    const { rows } = await this.pool.query<JobRow>(
      `WITH due AS (
         SELECT delivery_id FROM deliveries
         WHERE state = 'pending' AND next_attempt_at < now() - $1 * interval '1 millisecond'
           AND (lease_until IS NULL OR lease_until < now())
         ORDER BY next_attempt_at LIMIT $2 FOR UPDATE SKIP LOCKED)
       UPDATE deliveries d SET lease_until = now() + $3 * interval '1 millisecond'
       FROM due, events e
       WHERE d.delivery_id = due.delivery_id AND e.event_id = d.event_id
       RETURNING ${JOB_COLUMNS}`,
      [graceMs, limit, this.leaseMs],
    );
    return rows.map(toJob).sort((a, b) => (a.deliveryId < b.deliveryId ? -1 : 1));
  }

  /** Extends the leases of deliveries this replica holds (waiting in its queues or in flight). */
  async renewLeases(deliveryIds: readonly string[]): Promise<void> {
    if (deliveryIds.length === 0) return;
    await this.pool.query(
      `UPDATE deliveries SET lease_until = now() + $2 * interval '1 millisecond' WHERE delivery_id = ANY($1) AND state = 'pending'`,
      [deliveryIds, this.leaseMs],
    );
  }

  /** Gives a delivery back without an attempt (its secret could not be read): the sweep tries it later. */
  async postpone(deliveryId: string, until: Date): Promise<void> {
    await this.pool.query(`UPDATE deliveries SET lease_until = NULL, next_attempt_at = $2 WHERE delivery_id = $1 AND state = 'pending'`, [
      deliveryId,
      until,
    ]);
  }

  /**
   * Writes attempts and the states they lead to, in one statement. An outcome for an attempt
   * already recorded (made twice after a lost lease) replaces the log line and leaves the state to
   * the first. An attempt is written only for a delivery this statement updates or locks (there is
   * no foreign key, migration 007): one the retention deleted meanwhile gets none, and the
   * retention waits for the lock, then deletes the attempt with its delivery. The update is not
   * HOT, and cannot be while the sweep finds pending deliveries by an index: leaving `pending`
   * changes `state`, the predicate of `deliveries_overdue` (a lease alone is HOT). The rows are
   * found by key only (`ANY`, and a state test no partial index matches), as in the message
   * service's `markAcceptedMany`. Prepared: planning it took about 0.25 ms of Postgres's CPU a
   * call, and the connections' settings keep its plan on the key (`CONNECTION_SETTINGS`).
   */
  async recordOutcomes(outcomes: readonly AttemptOutcome[]): Promise<void> {
    if (outcomes.length === 0) return;
    const col = <T>(f: (o: AttemptOutcome) => T) => outcomes.map(f);
    await this.pool.query({
      name: 'deliveries-record-outcomes',
      text: `WITH t AS (
         SELECT * FROM unnest($1::text[], $2::int[], $3::text[], $4::timestamptz[], $5::int[], $6::text[], $7::timestamptz[], $8::text[], $9::int[])
           AS t(id, attempt, state, next_at, status, error, at, batch, latency_ms)),
       applied AS (
         UPDATE deliveries d SET attempts = t.attempt, state = t.state, next_attempt_at = t.next_at, lease_until = NULL,
           last_status = t.status, last_error = t.error, last_attempt_at = t.at, batch_id = t.batch,
           alert_state = CASE WHEN t.state = 'failed' THEN 'due' ELSE d.alert_state END
         FROM t
         WHERE d.delivery_id = ANY($1) AND d.delivery_id = t.id AND d.attempts = t.attempt - 1 AND (d.state = 'pending') IS TRUE
         RETURNING d.delivery_id),
       kept AS (
         SELECT delivery_id FROM deliveries
         WHERE delivery_id = ANY($1) AND delivery_id NOT IN (SELECT delivery_id FROM applied)
         FOR KEY SHARE)
       INSERT INTO attempts (delivery_id, attempt, attempted_at, http_status, latency_ms, error)
       SELECT t.id, t.attempt, t.at, t.status, t.latency_ms, t.error FROM t
       WHERE t.id IN (SELECT delivery_id FROM applied UNION ALL SELECT delivery_id FROM kept)
       ON CONFLICT (delivery_id, attempt) DO UPDATE SET attempted_at = excluded.attempted_at, http_status = excluded.http_status,
         latency_ms = excluded.latency_ms, error = excluded.error`,
      values: [
        col((o) => o.deliveryId),
        col((o) => o.attempt),
        col((o) => o.state),
        col((o) => o.nextAttemptAt),
        col((o) => o.httpStatus),
        col((o) => o.error),
        col((o) => o.attemptedAt),
        col((o) => o.batchId),
        col((o) => Math.round(o.latencyMs)),
      ],
    });
  }
}
