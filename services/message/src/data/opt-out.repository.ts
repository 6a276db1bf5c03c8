import { inTransaction, type Pool } from '@smsgw/platform';
import type { Page } from '../domain/history';
import { DEFAULT_SETTINGS, type OptOutSettings, type OptOutSource } from '../domain/opt-out';
import type { MessageRow, Mode } from '../domain/message-row';
import { UNTAKEN } from './message-conditions';

export interface OptOutRow {
  client_id: string;
  mode: Mode;
  phone_number: string;
  source: OptOutSource;
  keyword: string | null;
  created_at: Date;
}

/** A number a statement sends to, as the lookup reads it. */
export interface Recipient {
  clientId: string;
  mode: Mode;
  to: string;
}

export const recipientKey = (r: Recipient) => `${r.clientId}\u0000${r.mode}\u0000${r.to}`;

/** The suppression lists (per client and mode) and the clients' keyword settings. */
export class OptOutRepository {
  constructor(private readonly pool: Pool) {}

  /**
   * Which of the recipients are on their client's list in their mode, as
   * `recipientKey`s: one statement for all of them (primary key lookups).
   */
  async listed(recipients: Recipient[]): Promise<Set<string>> {
    if (recipients.length === 0) return new Set();
    const { rows } = await this.pool.query<{ client_id: string; mode: Mode; phone_number: string }>({
      name: 'opt-outs-listed',
      text: `SELECT o.client_id, o.mode, o.phone_number FROM opt_outs o
             WHERE (o.client_id, o.mode, o.phone_number) IN (SELECT * FROM unnest($1::text[], $2::text[], $3::text[]))`,
      values: [recipients.map((r) => r.clientId), recipients.map((r) => r.mode), recipients.map((r) => r.to)],
    });
    return new Set(rows.map((r) => recipientKey({ clientId: r.client_id, mode: r.mode, to: r.phone_number })));
  }

  /** Whether an OTP's SMS to `to` must fail: the number is listed and the client's OTPs do not ignore the list. */
  async blocksOtp(r: Recipient): Promise<boolean> {
    const { rows } = await this.pool.query<{ blocked: boolean }>({
      name: 'opt-outs-blocks-otp',
      text: `SELECT EXISTS (SELECT 1 FROM opt_outs WHERE client_id = $1 AND mode = $2 AND phone_number = $3)
               AND NOT coalesce((SELECT otp_ignores_opt_out FROM opt_out_settings WHERE client_id = $1), $4) AS blocked`,
      values: [r.clientId, r.mode, r.to, DEFAULT_SETTINGS.otpIgnoresOptOut],
    });
    return rows[0]!.blocked;
  }

  /**
   * A number just added to its client's list: the client's messages of that
   * mode to it that no phone has taken (queued or scheduled, not in a
   * phone's outbox, no live lease; in the fleet or held by a paused campaign too) end `failed` /
   * OPTED_OUT, except OTPs when the client's OTPs ignore the list. Only while
   * the number is on the list, so running it again (a redelivered STOP)
   * after a START changes nothing. A claim under way holds its row: this
   * waits for it, then leaves the message it took. `publish` gets the failed
   * rows before the commit (as the expiry does). Reads the history index of
   * the number (messages_history_to).
   */
  async failPending(r: Recipient, errorMessage: string, publish: (rows: MessageRow[]) => Promise<void>): Promise<MessageRow[]> {
    return inTransaction(this.pool, async (client) => {
      const { rows } = await client.query<MessageRow>(
        `UPDATE messages SET status = 'failed', failed_at = now(), error_code = 'OPTED_OUT', error_message = $4,
                             otp_sealed_text = NULL, lease_until = NULL, fleet = false, held = false
         WHERE client_id = $1 AND mode = $2 AND to_number = $3 AND ${UNTAKEN}
           AND EXISTS (SELECT 1 FROM opt_outs WHERE client_id = $1 AND mode = $2 AND phone_number = $3)
           AND (otp_sealed_text IS NULL
                OR NOT coalesce((SELECT otp_ignores_opt_out FROM opt_out_settings WHERE client_id = $1), $5))
         RETURNING *`,
        [r.clientId, r.mode, r.to, errorMessage, DEFAULT_SETTINGS.otpIgnoresOptOut],
      );
      if (rows.length > 0) await publish(rows);
      return rows;
    });
  }

  /** One page, newest first, and the list's size. */
  async list(clientId: string, mode: Mode, page: Page): Promise<{ rows: OptOutRow[]; total: number }> {
    const { rows } = await this.pool.query<OptOutRow & { total: number }>(
      `SELECT *, count(*) OVER ()::int AS total FROM opt_outs WHERE client_id = $1 AND mode = $2
       ORDER BY created_at DESC, phone_number LIMIT $3 OFFSET $4`,
      [clientId, mode, page.limit, page.offset],
    );
    if (rows.length > 0 || page.offset === 0) return { rows: rows.map(({ total: _, ...r }) => r), total: rows[0]?.total ?? 0 };
    const { rows: counted } = await this.pool.query<{ total: number }>(
      'SELECT count(*)::int AS total FROM opt_outs WHERE client_id = $1 AND mode = $2',
      [clientId, mode],
    );
    return { rows: [], total: counted[0]!.total };
  }

  /** Adds the number; on the list already: its first entry stays, and is returned. */
  async add(entry: {
    clientId: string;
    mode: Mode;
    phoneNumber: string;
    source: OptOutSource;
    keyword?: string | null;
  }): Promise<OptOutRow> {
    const key = [entry.clientId, entry.mode, entry.phoneNumber];
    const { rows } = await this.pool.query<OptOutRow>(
      `WITH inserted AS (
         INSERT INTO opt_outs (client_id, mode, phone_number, source, keyword) VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (client_id, mode, phone_number) DO NOTHING
         RETURNING *
       )
       SELECT * FROM inserted
       UNION ALL
       SELECT * FROM opt_outs WHERE client_id = $1 AND mode = $2 AND phone_number = $3 AND NOT EXISTS (SELECT 1 FROM inserted)`,
      [...key, entry.source, entry.keyword ?? null],
    );
    if (rows[0]) return rows[0];
    // Inserted by a concurrent statement this one's snapshot does not see yet.
    const again = await this.pool.query<OptOutRow>('SELECT * FROM opt_outs WHERE client_id = $1 AND mode = $2 AND phone_number = $3', key);
    return again.rows[0]!;
  }

  /** Removes the number; false when it was not on the list. */
  async remove(clientId: string, mode: Mode, phoneNumber: string): Promise<boolean> {
    const { rowCount } = await this.pool.query('DELETE FROM opt_outs WHERE client_id = $1 AND mode = $2 AND phone_number = $3', [
      clientId,
      mode,
      phoneNumber,
    ]);
    return (rowCount ?? 0) > 0;
  }

  /** The client's settings; the defaults when it set none. */
  async settings(clientId: string): Promise<OptOutSettings> {
    const { rows } = await this.pool.query<{ opt_out_keywords: string[]; start_keywords: string[]; otp_ignores_opt_out: boolean }>(
      'SELECT opt_out_keywords, start_keywords, otp_ignores_opt_out FROM opt_out_settings WHERE client_id = $1',
      [clientId],
    );
    const row = rows[0];
    if (!row)
      return {
        ...DEFAULT_SETTINGS,
        optOutKeywords: [...DEFAULT_SETTINGS.optOutKeywords],
        startKeywords: [...DEFAULT_SETTINGS.startKeywords],
      };
    return { optOutKeywords: row.opt_out_keywords, startKeywords: row.start_keywords, otpIgnoresOptOut: row.otp_ignores_opt_out };
  }

  /** Replaces the client's settings (already validated and normalised). */
  async saveSettings(clientId: string, s: OptOutSettings): Promise<void> {
    await this.pool.query(
      `INSERT INTO opt_out_settings (client_id, opt_out_keywords, start_keywords, otp_ignores_opt_out) VALUES ($1, $2, $3, $4)
       ON CONFLICT (client_id) DO UPDATE SET opt_out_keywords = excluded.opt_out_keywords, start_keywords = excluded.start_keywords,
         otp_ignores_opt_out = excluded.otp_ignores_opt_out, updated_at = now()`,
      [clientId, s.optOutKeywords, s.startKeywords, s.otpIgnoresOptOut],
    );
  }
}
