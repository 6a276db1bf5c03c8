import { inTransaction, type Pool } from '@smsgw/platform';
import type { RepairKind, ServerMessage } from '../domain/reconcile';
import type { MessageRow } from '../domain/message-row';

/** A repair a digest made, as `recordRepairs` stores it. */
export interface RepairRecord {
  messageId: string;
  kind: RepairKind;
}

/** The moved attempt of a message the phone never had, and its French sentence. */
export const NOT_ON_PHONE = {
  code: 'NOT_ON_PHONE',
  message: "Le téléphone n'a jamais reçu le message : il a été remis dans la file d'attente.",
} as const;

/** The SQL of reconciliation (protocol 7): the messages a phone holds, their return to the queue, the repairs. */
export class ReconcileRepository {
  constructor(private readonly pool: Pool) {}

  /** The messages `deviceId` acknowledged between `from` and `to` that it never reported. */
  async heldBy(deviceId: string, from: Date, to: Date): Promise<ServerMessage[]> {
    if (from > to) return [];
    const { rows } = await this.pool.query<ServerMessage>(
      `SELECT message_id, device_id, status, accepted_at, sent_at FROM messages
       WHERE device_id = $1 AND status = 'queued' AND accepted_at BETWEEN $2 AND $3`,
      [deviceId, from, to],
    );
    return rows;
  }

  /**
   * Puts back in their device's queue the messages the phone never had, each with a `moved`
   * attempt (NOT_ON_PHONE), in one statement; a message acknowledged again meanwhile (another
   * `accepted_at`), or reported, is left alone.
   */
  async requeue(deviceId: string, held: readonly ServerMessage[]): Promise<MessageRow[]> {
    if (held.length === 0) return [];
    const { rows } = await this.pool.query<MessageRow>(
      `UPDATE messages m SET accepted_at = NULL, lease_until = NULL,
         attempts = coalesce(m.attempts, '[]'::jsonb) || jsonb_build_array(jsonb_build_object(
           'device_id', $1::text, 'status', 'moved', 'error_code', $4::text, 'error_message', $5::text,
           'at', to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), 'sim', m.sim, 'repair', 'requeued'))
       FROM unnest($2::text[], $3::timestamptz[]) AS h(message_id, accepted_at)
       WHERE m.message_id = h.message_id AND m.device_id = $1 AND m.status = 'queued' AND m.sent_at IS NULL
         AND m.accepted_at = h.accepted_at
       RETURNING m.*`,
      [deviceId, held.map((h) => h.message_id), held.map((h) => h.accepted_at), NOT_ON_PHONE.code, NOT_ON_PHONE.message],
    );
    return rows;
  }

  /** Writes each repair on its message and adds them to the phone's counts, in one transaction. */
  async recordRepairs(deviceId: string, repairs: readonly RepairRecord[]): Promise<void> {
    if (repairs.length === 0) return;
    await inTransaction(this.pool, async (client) => {
      await client.query(
        `UPDATE messages m SET repairs = coalesce(m.repairs, '[]'::jsonb) || jsonb_build_array(jsonb_build_object(
           'kind', r.kind, 'device_id', $1::text, 'at', to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')))
         FROM unnest($2::text[], $3::text[]) AS r(message_id, kind)
         WHERE m.message_id = r.message_id`,
        [deviceId, repairs.map((r) => r.messageId), repairs.map((r) => r.kind)],
      );
      await client.query(
        `INSERT INTO device_repairs (device_id, kind, count, last_at)
         SELECT $1, kind, count(*), now() FROM unnest($2::text[]) AS r(kind) GROUP BY kind
         ON CONFLICT (device_id, kind) DO UPDATE SET count = device_repairs.count + excluded.count, last_at = excluded.last_at`,
        [deviceId, repairs.map((r) => r.kind)],
      );
    });
  }

  /** How many repairs of each kind each device's digests made. */
  async countsOf(deviceIds: readonly string[]): Promise<Map<string, Record<string, number>>> {
    const counts = new Map<string, Record<string, number>>();
    if (deviceIds.length === 0) return counts;
    const { rows } = await this.pool.query<{ device_id: string; kind: string; count: string }>(
      'SELECT device_id, kind, count FROM device_repairs WHERE device_id = ANY($1::text[])',
      [deviceIds],
    );
    for (const r of rows) counts.set(r.device_id, { ...counts.get(r.device_id), [r.kind]: Number(r.count) });
    return counts;
  }
}
