import { inTransaction, type Pool } from '@smsgw/platform';
import type { Mode } from '../domain/message-row';

export interface CampaignUploadRow {
  upload_id: string;
  client_id: string;
  mode: Mode;
  name: string;
  file_name: string;
  headers: string[];
  row_count: number;
  byte_size: number;
  created_at: Date;
  expires_at: Date;
  /** Only when asked for. */
  content?: Buffer;
}

/** A campaign file as every request names it: by id, within its client and mode. */
export interface UploadKey {
  uploadId: string;
  clientId: string;
  mode: Mode;
}

/** A client's caps on the files kept at once, and on their bytes. */
export interface UploadCaps {
  maxUploads: number;
  maxBytes: number;
}

/** What a client's kept files use now; `roomAt`: when the oldest expires. */
export interface UploadUse {
  uploads: number;
  bytes: number;
  roomAt?: Date;
}

const COLUMNS = 'upload_id, client_id, mode, name, file_name, headers, row_count, byte_size, created_at, expires_at';

/**
 * The campaign files kept between their upload and their send. A client's
 * uploads are stored one at a time (an advisory lock on the client and mode),
 * so that two at once cannot both pass its caps. An expired file is never
 * answered; the client's expired ones are deleted at its next upload, and
 * every expired one by `deleteExpired` (the retention).
 */
export class CampaignUploadRepository {
  constructor(private readonly pool: Pool) {}

  /** Stores the file unless it would take the client past a cap; what the kept files use then. */
  async store(
    row: Omit<CampaignUploadRow, 'created_at' | 'expires_at' | 'content'> & { content: Buffer; ttlMs: number },
    caps: UploadCaps,
  ): Promise<{ stored: CampaignUploadRow } | { full: UploadUse }> {
    return inTransaction(this.pool, async (db) => {
      await db.query(`SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, [`campaign-uploads ${row.client_id} ${row.mode}`]);
      await db.query(`DELETE FROM campaign_uploads WHERE client_id = $1 AND mode = $2 AND expires_at <= now()`, [row.client_id, row.mode]);
      const { rows: kept } = await db.query<{ uploads: number; bytes: string; room_at: Date | null }>(
        `SELECT count(*)::int AS uploads, coalesce(sum(byte_size), 0)::bigint AS bytes, min(expires_at) AS room_at
           FROM campaign_uploads WHERE client_id = $1 AND mode = $2`,
        [row.client_id, row.mode],
      );
      const use = { uploads: kept[0]!.uploads, bytes: Number(kept[0]!.bytes), ...(kept[0]!.room_at ? { roomAt: kept[0]!.room_at } : {}) };
      if (use.uploads + 1 > caps.maxUploads || use.bytes + row.byte_size > caps.maxBytes) return { full: use };
      const { rows } = await db.query<CampaignUploadRow>(
        `INSERT INTO campaign_uploads (upload_id, client_id, mode, name, file_name, headers, row_count, content, byte_size, expires_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, now() + $10 * interval '1 millisecond')
         RETURNING ${COLUMNS}`,
        [
          row.upload_id,
          row.client_id,
          row.mode,
          row.name,
          row.file_name,
          row.headers,
          row.row_count,
          row.content,
          row.byte_size,
          row.ttlMs,
        ],
      );
      return { stored: rows[0]! };
    });
  }

  /** The client's file, with its content when asked, unless expired. */
  async find(key: UploadKey, withContent: boolean): Promise<CampaignUploadRow | undefined> {
    const { rows } = await this.pool.query<CampaignUploadRow>(
      `SELECT ${COLUMNS}${withContent ? ', content' : ''} FROM campaign_uploads
        WHERE upload_id = $1 AND client_id = $2 AND mode = $3 AND expires_at > now()`,
      [key.uploadId, key.clientId, key.mode],
    );
    return rows[0];
  }

  /** The client's files kept now, newest first, and what they use. */
  async list(clientId: string, mode: Mode): Promise<CampaignUploadRow[]> {
    const { rows } = await this.pool.query<CampaignUploadRow>(
      `SELECT ${COLUMNS} FROM campaign_uploads
        WHERE client_id = $1 AND mode = $2 AND expires_at > now()
        ORDER BY created_at DESC, upload_id DESC`,
      [clientId, mode],
    );
    return rows;
  }

  /** Removes the client's file, once: what it was, or undefined when it was not there (or expired). */
  async take(key: UploadKey): Promise<CampaignUploadRow | undefined> {
    const { rows } = await this.pool.query<CampaignUploadRow & { expired: boolean }>(
      `DELETE FROM campaign_uploads WHERE upload_id = $1 AND client_id = $2 AND mode = $3
        RETURNING ${COLUMNS}, expires_at <= now() AS expired`,
      [key.uploadId, key.clientId, key.mode],
    );
    const row = rows[0];
    if (!row || row.expired) return undefined;
    const { expired: _expired, ...upload } = row;
    return upload;
  }

  /** Deletes every expired file; how many. */
  async deleteExpired(): Promise<number> {
    const { rowCount } = await this.pool.query(`DELETE FROM campaign_uploads WHERE expires_at <= now()`);
    return rowCount ?? 0;
  }
}
