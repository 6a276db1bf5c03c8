import { FAILURE_MESSAGES, type Pool, type PoolClient } from '@smsgw/platform';
import { EXACT_UP_TO } from '../domain/queue-order';
import type { MessageRow, NewMessage } from '../domain/message-row';
import { messageColumns } from './message-conditions';

/**
 * Inserts an OTP's SMS (see `QueueRepository.insertOtp`): queued, or
 * `failed` / OPTED_OUT with no sealed text when `m.optedOut`. With
 * `m.otpFallback`, the sealed text is kept a second time for the fallback. Undefined when
 * its id is stored already. `ahead`: priority-1 messages of its device due no
 * later, up to 100 (0 for a failed one), counted in the queue index's order:
 * they are few among the others, which an unordered count would read to find them.
 */
export async function insertOtpRow(
  db: Pool | PoolClient,
  m: NewMessage,
  sealedText: Buffer,
  expiresAt: Date,
): Promise<{ row: MessageRow; ahead: number } | undefined> {
  const { rows } = await db.query<MessageRow & { ahead: number }>({
    name: 'messages-insert-otp',
    text: `WITH inserted AS (
         INSERT INTO messages (message_id, client_id, mode, device_id, to_number, body, priority, metadata, parts, encoding,
                               due_at, status, otp_sealed_text, expires_at, traceparent, pinned, failed_at, error_code, error_message,
                               requested_sim, sim, otp_fallback_text)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, now(), CASE WHEN $15::boolean THEN 'failed' ELSE 'queued' END,
                 CASE WHEN $15::boolean THEN NULL ELSE $11::bytea END, $12, $13, $14,
                 CASE WHEN $15::boolean THEN now() END, CASE WHEN $15::boolean THEN 'OPTED_OUT' END,
                 CASE WHEN $15::boolean THEN $16::text END, $17, $17,
                 CASE WHEN $18::boolean AND NOT $15::boolean THEN $11::bytea END)
         ON CONFLICT (message_id) DO NOTHING
         RETURNING ${messageColumns()}
       ), texts AS (
         INSERT INTO message_texts (message_id, client_id, mode, body) SELECT message_id, client_id, mode, body FROM inserted
       )
       SELECT i.*, CASE WHEN i.status <> 'queued' THEN 0 ELSE (
         SELECT count(*)::int FROM (
           SELECT 1 FROM messages q
           WHERE q.device_id = i.device_id AND q.mode = i.mode AND q.status = 'queued' AND q.accepted_at IS NULL AND NOT q.held AND NOT q.fleet
             AND q.priority <= i.priority AND q.due_at <= i.due_at
           ORDER BY q.priority, q.due_at, q.message_id
           LIMIT ${EXACT_UP_TO}
         ) a
       ) END AS ahead
       FROM inserted i`,
    values: [
      m.messageId,
      m.clientId,
      m.mode,
      m.deviceId,
      m.to,
      m.text,
      m.priority,
      m.metadata ? JSON.stringify(m.metadata) : null,
      m.parts,
      m.encoding,
      sealedText,
      expiresAt,
      m.traceparent || null,
      m.pinned === true,
      m.optedOut === true,
      FAILURE_MESSAGES.OPTED_OUT,
      m.requestedSim ?? 0,
      m.otpFallback === true,
    ],
  });
  if (!rows[0]) return undefined;
  const { ahead, ...row } = rows[0];
  return { row, ahead };
}
