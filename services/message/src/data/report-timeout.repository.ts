import { FAILURE_MESSAGES, inTransaction, type Pool } from '@smsgw/platform';
import type { MessageRow } from '../domain/message-row';

/**
 * Messages a phone accepted (`accepted_at` set, status still `queued`) and
 * never reported. Accepted is the durable state this relies on: once set, the
 * message is no longer claimable nor cancellable.
 */
export class ReportTimeoutRepository {
  constructor(private readonly pool: Pool) {}

  /**
   * Ends as `failed` / `EXPIRED` at most `limit` messages accepted more than
   * `timeoutMs` ago, and hands them to `publish` before committing: when it
   * throws, nothing changes and a later run tries again. `failed_at` is the
   * instant the bound ran out (`accepted_at + timeoutMs`), so a run that is
   * repeated produces the same event. Rows locked by another replica's run
   * are skipped, and a row is changed only while still `queued`, so each
   * message fails once. Returns the number of messages ended.
   */
  async expireUnreported(timeoutMs: number, limit: number, publish: (rows: MessageRow[]) => Promise<void>): Promise<number> {
    return inTransaction(this.pool, async (client) => {
      const { rows } = await client.query<MessageRow>(
        `WITH due AS (
           SELECT message_id FROM messages
           WHERE status = 'queued' AND queued_at < now() - make_interval(secs => $1::double precision / 1000)
             AND accepted_at IS NOT NULL AND accepted_at < now() - make_interval(secs => $1::double precision / 1000)
           -- A message is queued before it is acknowledged: the oldest queued first (index messages_queued_since).
           ORDER BY queued_at
           LIMIT $2
           FOR UPDATE SKIP LOCKED
         )
         UPDATE messages m SET status = 'failed', lease_until = NULL,
                failed_at = m.accepted_at + make_interval(secs => $1::double precision / 1000),
                error_code = 'EXPIRED', error_message = $3
         FROM due WHERE m.message_id = due.message_id AND m.status = 'queued'
         RETURNING m.*`,
        [timeoutMs, limit, FAILURE_MESSAGES.EXPIRED],
      );
      if (rows.length > 0) await publish(rows);
      return rows.length;
    });
  }
}
