import { inTransaction, type Pool, type PoolClient } from '@smsgw/platform';
import type { Page } from '../domain/history';
import type { MessageRow, Mode } from '../domain/message-row';
import { UNTAKEN } from './message-conditions';

export type CampaignStatus = 'running' | 'paused' | 'cancelled';

export interface CampaignRow {
  campaign_id: string;
  client_id: string;
  mode: Mode;
  name: string;
  status: CampaignStatus;
  created_at: Date;
  updated_at: Date;
}

/** How many of a campaign's messages are in each state now; `held`: queued and held (not in `queued`). */
export interface CampaignCounts {
  total: number;
  queued: number;
  held: number;
  sent: number;
  delivered: number;
  failed: number;
  cancelled: number;
}

export type CampaignWithCounts = CampaignRow & CampaignCounts;

/** A campaign as every request names it: by id, within its client and mode. */
export interface CampaignKey {
  campaignId: string;
  clientId: string;
  mode: Mode;
}

/** What a move found: the campaign's status before it (none: not found), and the messages it changed. */
export interface CampaignMove {
  before?: CampaignStatus;
  rows: MessageRow[];
}

/** The counts of each campaign `c` (one probe of messages_campaign per campaign). */
const COUNTS = `CROSS JOIN LATERAL (
  SELECT count(*)::int AS total,
         count(*) FILTER (WHERE m.status = 'queued' AND NOT m.held)::int AS queued,
         count(*) FILTER (WHERE m.status = 'queued' AND m.held)::int AS held,
         count(*) FILTER (WHERE m.status = 'sent')::int AS sent,
         count(*) FILTER (WHERE m.status = 'delivered')::int AS delivered,
         count(*) FILTER (WHERE m.status = 'failed')::int AS failed,
         count(*) FILTER (WHERE m.status = 'cancelled')::int AS cancelled
  FROM messages m WHERE m.campaign_id = c.campaign_id
) n`;

/**
 * The campaigns and the holding of their messages. A paused campaign's
 * messages no phone has taken are `held`: out of the queue indexes, so no
 * claim, expiry, failover or stranded count sees them. Every move locks the
 * campaign's row first, and adding messages locks it too (`lockForAdd`): a
 * move and an add never cross, so messages added while paused are held.
 */
export class CampaignRepository {
  constructor(private readonly pool: Pool) {}

  async create(c: Pick<CampaignRow, 'campaign_id' | 'client_id' | 'mode' | 'name'>): Promise<CampaignWithCounts> {
    const { rows } = await this.pool.query<CampaignRow>(
      `INSERT INTO campaigns (campaign_id, client_id, mode, name, status) VALUES ($1, $2, $3, $4, 'running') RETURNING *`,
      [c.campaign_id, c.client_id, c.mode, c.name],
    );
    return { ...rows[0]!, total: 0, queued: 0, held: 0, sent: 0, delivered: 0, failed: 0, cancelled: 0 };
  }

  async find(key: CampaignKey): Promise<CampaignWithCounts | undefined> {
    const { rows } = await this.pool.query<CampaignWithCounts>(
      `SELECT c.*, n.* FROM campaigns c ${COUNTS} WHERE c.campaign_id = $1 AND c.client_id = $2 AND c.mode = $3`,
      [key.campaignId, key.clientId, key.mode],
    );
    return rows[0];
  }

  /** One page of the client's campaigns in a mode, newest first, and how many there are. */
  async list(clientId: string, mode: Mode, page: Page): Promise<{ rows: CampaignWithCounts[]; total: number }> {
    const { rows } = await this.pool.query<CampaignWithCounts>(
      `SELECT c.*, n.* FROM (
         SELECT * FROM campaigns WHERE client_id = $1 AND mode = $2 ORDER BY created_at DESC, campaign_id DESC LIMIT $3 OFFSET $4
       ) c ${COUNTS}
       ORDER BY c.created_at DESC, c.campaign_id DESC`,
      [clientId, mode, page.limit, page.offset],
    );
    const { rows: counted } = await this.pool.query<{ total: number }>(
      'SELECT count(*)::int AS total FROM campaigns WHERE client_id = $1 AND mode = $2',
      [clientId, mode],
    );
    return { rows, total: counted[0]!.total };
  }

  /**
   * Within the transaction that stores a campaign's messages: its status,
   * its row locked against a move until the commit (undefined: not found).
   */
  async lockForAdd(db: PoolClient, key: CampaignKey): Promise<CampaignStatus | undefined> {
    const { rows } = await db.query<{ status: CampaignStatus }>(
      'SELECT status FROM campaigns WHERE campaign_id = $1 AND client_id = $2 AND mode = $3 FOR SHARE',
      [key.campaignId, key.clientId, key.mode],
    );
    return rows[0]?.status;
  }

  /** Pauses a running or paused campaign and holds its untaken messages; a cancelled one does not move. */
  async pause(key: CampaignKey): Promise<CampaignMove> {
    return this.move(key, 'paused', (db) =>
      db.query<MessageRow>(`UPDATE messages SET held = true WHERE campaign_id = $1 AND ${UNTAKEN} AND NOT held RETURNING *`, [
        key.campaignId,
      ]),
    );
  }

  /** Resumes a paused or running campaign: its held messages are claimable again; a cancelled one does not move. */
  async resume(key: CampaignKey): Promise<CampaignMove> {
    return this.move(key, 'running', (db) =>
      db.query<MessageRow>(`UPDATE messages SET held = false WHERE campaign_id = $1 AND held RETURNING *`, [key.campaignId]),
    );
  }

  /**
   * Cancels a campaign: its messages no phone has taken (held or not) end
   * `cancelled`, as CancelMessage ends one; those a phone took go on.
   * Cancelling it again changes nothing.
   */
  async cancel(key: CampaignKey): Promise<CampaignMove> {
    return this.move(key, 'cancelled', (db) =>
      db.query<MessageRow>(
        `UPDATE messages SET status = 'cancelled', cancelled_at = now(), otp_sealed_text = NULL, held = false
         WHERE campaign_id = $1 AND ${UNTAKEN}
         RETURNING *`,
        [key.campaignId],
      ),
    );
  }

  /**
   * Locks the campaign's row, then (a statement of its own, so that it sees
   * the messages an add committed while it waited) changes its messages; a
   * cancelled campaign neither moves nor changes any message.
   */
  private async move(
    key: CampaignKey,
    to: CampaignStatus,
    change: (db: PoolClient) => Promise<{ rows: MessageRow[] }>,
  ): Promise<CampaignMove> {
    return inTransaction(this.pool, async (db) => {
      const { rows } = await db.query<{ status: CampaignStatus }>(
        'SELECT status FROM campaigns WHERE campaign_id = $1 AND client_id = $2 AND mode = $3 FOR UPDATE',
        [key.campaignId, key.clientId, key.mode],
      );
      const before = rows[0]?.status;
      if (!before || before === 'cancelled') return { before, rows: [] };
      await db.query('UPDATE campaigns SET status = $2, updated_at = now() WHERE campaign_id = $1 AND status <> $2', [key.campaignId, to]);
      return { before, rows: (await change(db)).rows };
    });
  }
}
