import { inTransaction, inTransactionWithGenericPlans, type Pool, type PoolClient } from '@smsgw/platform';
import { assignClaims, EXACT_UP_TO, type BatchedClaim, type FleetCandidate, type QueueHead } from '../domain/queue-order';
import {
  CLAIMED_FIELDS,
  type ClaimedFields,
  type MessageRow,
  type Mode,
  type NewBatch,
  type NewMessage,
  type PlacedMessage,
} from '../domain/message-row';
import { CLAIMABLE, messageColumns } from './message-conditions';
import { insertOtpRow } from './otp-insert';
import { insertQueuedRows } from './queue-insert';

/** A message that asked for no SIM, or for one of the slots in `param` (a smallint[]; empty: any). */
const SIM_FITS = (param: string) =>
  `(requested_sim = 0 OR cardinality(${param}::smallint[]) = 0 OR requested_sim = ANY(${param}::smallint[]))`;

/** A row of the batched claim's first statement: the head of a claim's own queue, or a message of a client's fleet. */
interface HeadRow extends QueueHead {
  kind: 'own' | 'fleet';
  /** The claim's place (1-based) for `own`. */
  ord: string | null;
  client_id: string | null;
  avoid_device_id: string | null;
  requested_sim: number;
}

/**
 * The per-device priority queue: storing messages where the claim will find
 * them (with their batch and Idempotency-Keys, in one statement), telling how
 * many go before each, and handing the next one to a phone under a lease.
 */
export class QueueRepository {
  constructor(private readonly pool: Pool) {}

  /**
   * Inserts all messages (and their batch, if any) in one statement, so in
   * one transaction: a batch, or the independent sends gathered by SendMany.
   */
  async insert(messages: NewMessage[], batch?: NewBatch): Promise<MessageRow[]> {
    return (await this.insertPlaced(messages, batch)).map((p) => p.row);
  }

  /**
   * Inserts like `insert`, and tells for each message how many messages of
   * its device go before it: the input of `estimated_delivery`. One
   * statement: the count reads the queue as it was before the insert, and
   * the messages of the statement are then placed among themselves as the
   * claim orders them; it also tells whether each device had anything to
   * claim. Messages already queued are counted one by one up to
   * 100; past that the device's queued total is read from the per-day counts
   * (priority ignored), so that a long queue does not make every send slower.
   * Messages opened to the fleet are no longer the device's: not counted.
   *
   * Idempotency keys (of single sends, or of the batch) are stored by the same
   * statement, under a unique constraint per client and mode: a message whose
   * key is already stored (by a committed or a concurrent statement, which
   * this one then waits for) is not inserted and is absent from the result;
   * `findKeys` tells what the key points to. A key older than `keyTtlSeconds`
   * is taken over. No two messages of one call may carry the same key.
   *
   * A message `optedOut` is stored `failed` / OPTED_OUT (failed_at now), never
   * claimable, counted in no queue; when the call has any, the statement runs
   * in a transaction and `publishFailed` gets those rows before the commit
   * (as the expiry does): if it throws, nothing is stored.
   *
   * A message of a campaign (`campaignId`) is stored held when its campaign
   * is paused; `before` (a campaign's lock and check) runs first in the same
   * transaction: if it throws, nothing is stored.
   */
  async insertPlaced(
    messages: NewMessage[],
    batch?: NewBatch,
    keyTtlSeconds = 86_400,
    publishFailed?: (rows: MessageRow[]) => Promise<void>,
    before?: (db: PoolClient) => Promise<void>,
  ): Promise<PlacedMessage[]> {
    if (!before && (!publishFailed || !messages.some((m) => m.optedOut)))
      return insertQueuedRows(this.pool, messages, batch, keyTtlSeconds);
    return inTransaction(this.pool, async (client) => {
      await before?.(client);
      const placed = await insertQueuedRows(client, messages, batch, keyTtlSeconds);
      const failed = placed.filter((p) => p.row.status === 'failed').map((p) => p.row);
      if (failed.length > 0 && publishFailed) await publishFailed(failed);
      return placed;
    });
  }

  /**
   * Inserts like `insertPlaced` (no batch), but leaves out each message whose
   * number is on its client's list (or `optedOut`), in the same statement: it is absent from
   * the result, as a message whose key is stored already is, and nothing of
   * it is stored. The caller stores those after the lookup (`optedOut`).
   */
  async insertUnlisted(messages: NewMessage[], keyTtlSeconds: number): Promise<PlacedMessage[]> {
    return insertQueuedRows(this.pool, messages, undefined, keyTtlSeconds, true);
  }

  /**
   * Stored messages as a send answered again reads them: each row, and how
   * many messages of its device the claim takes before it now (up to 100).
   */
  async findPlaced(messageIds: string[]): Promise<{ row: MessageRow; ahead: number }[]> {
    const { rows } = await this.pool.query<MessageRow & { ahead: number }>(
      `SELECT m.*, CASE WHEN m.status = 'queued' AND m.accepted_at IS NULL THEN (
                SELECT count(*)::int FROM (
                  SELECT 1 FROM messages q
                  WHERE q.device_id = m.device_id AND q.mode = m.mode AND q.status = 'queued' AND q.accepted_at IS NULL AND NOT q.held AND NOT q.fleet
                    AND q.due_at <= m.due_at AND (q.priority, q.due_at, q.message_id) < (m.priority, m.due_at, m.message_id)
                  LIMIT ${EXACT_UP_TO}
                ) a
              ) ELSE 0 END AS ahead
       FROM messages m WHERE m.message_id = ANY($1::text[])`,
      [messageIds],
    );
    return rows.map(({ ahead, ...row }) => ({ row, ahead }));
  }

  /**
   * Stores an OTP's SMS: `message.text` is the masked text, `sealedText` the
   * full one, sealed. Its id is the caller's: the same id again (the otp
   * service completing an OTP after a lost answer) stores nothing and gives
   * undefined. Tells how many messages of its device the claim takes before
   * it (priority 1: only priority-1 messages due no later, up to 100).
   */
  async insertOtp(
    message: NewMessage,
    sealedText: Buffer,
    expiresAt: Date,
    publishFailed?: (rows: MessageRow[]) => Promise<void>,
  ): Promise<{ row: MessageRow; ahead: number } | undefined> {
    if (!publishFailed || !message.optedOut) return insertOtpRow(this.pool, message, sealedText, expiresAt);
    return inTransaction(this.pool, async (client) => {
      const inserted = await insertOtpRow(client, message, sealedText, expiresAt);
      if (inserted) await publishFailed([inserted.row]);
      return inserted;
    });
  }

  /**
   * Takes the next due message (priority 1 first, then oldest) under a lease:
   * the device's live messages, or in test mode the device's test messages,
   * or with no device any client's test messages (the simulated device).
   * A live claim given the device's `clientId` also considers the client's
   * messages opened to the fleet (except those to keep off this device) and
   * takes the best of both; a fleet message taken becomes this device's.
   * `sims` (the phone's slots with room; empty: any) keeps out a message
   * that asked for another SIM: a filter on the rows the queue indexes hand
   * over in claim order, not another access path.
   */
  async claimNext(
    deviceId: string,
    leaseMs: number,
    mode: Mode = 'live',
    clientId = '',
    sims: number[] = [],
  ): Promise<MessageRow | undefined> {
    // Only the simulated device of test keys may take messages of any device.
    if (!deviceId && mode === 'live') throw new Error('a live claim needs a device');
    if (mode === 'live' && clientId) return this.claimWithFleet(deviceId, clientId, leaseMs, sims);
    const params: unknown[] = [leaseMs, mode, sims];
    if (deviceId) params.push(deviceId);
    const { rows } = await this.pool.query<MessageRow>(
      `WITH next AS (
         SELECT message_id FROM messages
         WHERE mode = $2 ${deviceId ? 'AND device_id = $4 AND NOT fleet' : ''} AND ${CLAIMABLE} AND due_at <= now()
           AND (expires_at IS NULL OR expires_at > now()) AND ${SIM_FITS('$3')}
         ORDER BY priority, due_at, message_id
         LIMIT 1
         FOR UPDATE SKIP LOCKED
       )
       UPDATE messages m SET lease_until = now() + make_interval(secs => $1::double precision / 1000),
                             claim_count = claim_count + 1
       FROM next WHERE m.message_id = next.message_id
       RETURNING m.*`,
      params,
    );
    return rows[0];
  }

  /**
   * The live claims of many phones at once, in one transaction (see `assignClaims`): the heads of
   * their own queues and the first messages of their clients' fleets are locked (rows another
   * claim holds are skipped), each claim takes the better of its own head and a fleet message it
   * may take, and the messages taken get their lease in one statement. Returns the claimed row
   * per claim, in the order given (undefined: nothing due). No two claims may name one device.
   */
  async claimMany(claims: readonly BatchedClaim[], leaseMs: number): Promise<(ClaimedFields | undefined)[]> {
    if (claims.length === 0) return [];
    const simsOf = (c: BatchedClaim) => `{${c.sims.join(',')}}`;
    const perClient = new Map<string, number>();
    for (const c of claims) perClient.set(c.clientId, (perClient.get(c.clientId) ?? 0) + 1);
    // The heads' custom plans (with the arrays' lengths) cost about as much to make as the statement
    // to run, and the plan cache made one at about half the calls.
    return inTransactionWithGenericPlans(this.pool, async (tx) => {
      const heads = await tx.query<HeadRow>({
        name: 'messages-claim-many-heads',
        text: `SELECT 'own' AS kind, r.ord, h.message_id, h.priority, h.due_at, NULL AS client_id, NULL AS avoid_device_id, 0 AS requested_sim
           FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS r(device_id, sims, ord)
           CROSS JOIN LATERAL (
             SELECT message_id, priority, due_at FROM messages
             WHERE device_id = r.device_id AND mode = 'live' AND NOT fleet AND ${CLAIMABLE} AND due_at <= now()
               AND (expires_at IS NULL OR expires_at > now()) AND ${SIM_FITS('r.sims')}
             ORDER BY priority, due_at, message_id
             LIMIT 1
             FOR UPDATE SKIP LOCKED
           ) h
         UNION ALL
         SELECT 'fleet', NULL, f.message_id, f.priority, f.due_at, c.client_id, f.avoid_device_id, f.requested_sim
           FROM unnest($3::text[], $4::int[]) AS c(client_id, wanted)
           CROSS JOIN LATERAL (
             SELECT message_id, priority, due_at, avoid_device_id, requested_sim FROM messages
             WHERE client_id = c.client_id AND mode = 'live' AND fleet AND ${CLAIMABLE} AND due_at <= now()
               AND (expires_at IS NULL OR expires_at > now())
             ORDER BY priority, due_at, message_id
             LIMIT c.wanted
             FOR UPDATE SKIP LOCKED
           ) f`,
        // Twice as many fleet messages as the client's claims: some may be kept off a phone (avoided, another SIM).
        values: [claims.map((c) => c.deviceId), claims.map(simsOf), [...perClient.keys()], [...perClient.values()].map((n) => 2 * n)],
      });
      const own = new Map<number, QueueHead>();
      const fleet: FleetCandidate[] = [];
      for (const row of heads.rows) {
        if (row.kind === 'own') own.set(Number(row.ord) - 1, row);
        else fleet.push({ ...row, client_id: row.client_id ?? '' });
      }
      const chosen = assignClaims(claims, own, fleet);
      const taken = chosen.flatMap((id, i) => (id ? [{ id, deviceId: claims[i]!.deviceId }] : []));
      if (taken.length === 0) return claims.map(() => undefined);
      const { rows } = await tx.query<ClaimedFields>({
        name: 'messages-claim-many',
        text: `UPDATE messages m SET lease_until = now() + make_interval(secs => $1::double precision / 1000),
                                 claim_count = claim_count + 1, device_id = t.device_id, fleet = false
           FROM unnest($2::text[], $3::text[]) AS t(message_id, device_id)
           WHERE m.message_id = ANY($2::text[]) AND m.message_id = t.message_id
           RETURNING ${CLAIMED_FIELDS.map((f) => `m.${f}`).join(', ')}`,
        values: [leaseMs, taken.map((t) => t.id), taken.map((t) => t.deviceId)],
      });
      const byId = new Map(rows.map((r) => [r.message_id, r]));
      return chosen.map((id) => (id ? byId.get(id) : undefined));
    });
  }

  /**
   * One round trip: the head of the device's own queue (index
   * messages_queue), then the head of the client's fleet (messages_fleet_queue)
   * only if it goes before that one, so that a fleet message is locked only
   * when it is taken; the better of the two is claimed.
   */
  private async claimWithFleet(deviceId: string, clientId: string, leaseMs: number, sims: number[]): Promise<MessageRow | undefined> {
    const { rows } = await this.pool.query<MessageRow>({
      name: 'messages-claim-fleet',
      text: `WITH own AS MATERIALIZED (
         SELECT message_id, priority, due_at FROM messages
         WHERE device_id = $2 AND mode = 'live' AND NOT fleet AND ${CLAIMABLE} AND due_at <= now()
           AND (expires_at IS NULL OR expires_at > now()) AND ${SIM_FITS('$4')}
         ORDER BY priority, due_at, message_id
         LIMIT 1
         FOR UPDATE SKIP LOCKED
       ), pool AS MATERIALIZED (
         SELECT message_id, priority, due_at FROM messages
         WHERE client_id = $3 AND mode = 'live' AND fleet AND ${CLAIMABLE} AND due_at <= now()
           AND (expires_at IS NULL OR expires_at > now()) AND avoid_device_id IS DISTINCT FROM $2 AND ${SIM_FITS('$4')}
           AND (priority, due_at, message_id) < (coalesce((SELECT priority FROM own), 32767),
                                                 coalesce((SELECT due_at FROM own), 'infinity'),
                                                 coalesce((SELECT message_id FROM own), ''))
         ORDER BY priority, due_at, message_id
         LIMIT 1
         FOR UPDATE SKIP LOCKED
       ), next AS (
         SELECT message_id FROM (SELECT * FROM pool UNION ALL SELECT * FROM own) c
         ORDER BY priority, due_at, message_id
         LIMIT 1
       )
       UPDATE messages m SET lease_until = now() + make_interval(secs => $1::double precision / 1000),
                             claim_count = claim_count + 1, device_id = $2, fleet = false
       FROM next WHERE m.message_id = next.message_id
       RETURNING ${messageColumns('m')}`,
      values: [leaseMs, deviceId, clientId, sims],
    });
    return rows[0];
  }
}
