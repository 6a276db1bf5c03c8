import type { Pool } from '@smsgw/platform';
import type { Mode, StoredKey } from '../domain/message-row';

/**
 * What stored Idempotency-Keys point to. The keys are written by the
 * statement that stores their messages (`QueueRepository.insertPlaced`), so
 * that a key and its message exist together or not at all.
 */
export class IdempotencyKeyRepository {
  constructor(private readonly pool: Pool) {}

  /** What each of these keys (of a client and mode) points to, when stored. */
  async findKeys(keys: { clientId: string; mode: Mode; key: string }[]): Promise<StoredKey[]> {
    if (keys.length === 0) return [];
    const { rows } = await this.pool.query<StoredKey>(
      `SELECT k.client_id, k.mode, k.idempotency_key, k.request_hash, k.message_id, k.batch_id
       FROM idempotency_keys k
       JOIN unnest($1::text[], $2::text[], $3::text[]) AS x(client_id, mode, idempotency_key)
         ON (k.client_id, k.mode, k.idempotency_key) = (x.client_id, x.mode, x.idempotency_key)`,
      [keys.map((k) => k.clientId), keys.map((k) => k.mode), keys.map((k) => k.key)],
    );
    return rows;
  }
}
