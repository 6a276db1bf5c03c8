import type { Pool } from '@smsgw/platform';
import type { Mode } from './otp.repository';
import type { HoldScope } from '../domain/otp-guard';

export interface HoldRow {
  hold_id: string;
  client_id: string;
  mode: Mode;
  scope: HoldScope;
  /** The held prefix as the owner sees it (`+3361234`), or a country's calling code (`+33`). */
  prefix: string;
  /** The guard's key of the prefix (a keyed hash), to end the hold in Redis. */
  prefix_key: string;
  country: string;
  requests: number;
  verified: number;
  window_seconds: number;
  held_at: Date;
  held_until: Date;
  released_at: Date | null;
  event_id: string;
  /** Whether OTPs there are refused now: not released, its window not over. */
  active: boolean;
}

export type NewHold = Omit<HoldRow, 'held_at' | 'held_until' | 'released_at' | 'active'>;

/** Ended holds shown with the live ones, for this long. */
const RECENT_DAYS = 7;

/** The holds the pumping guard made: what the owner reads and releases (Redis holds the state sends check). */
export class HoldRepository {
  constructor(private readonly pool: Pool) {}

  async insert(hold: NewHold): Promise<HoldRow> {
    const { rows } = await this.pool.query<HoldRow>(
      `INSERT INTO holds (hold_id, client_id, mode, scope, prefix, prefix_key, country, requests, verified, window_seconds, held_until, event_id)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10::int, now() + make_interval(secs => $10::int), $11)
       RETURNING *, true AS active`,
      [
        hold.hold_id,
        hold.client_id,
        hold.mode,
        hold.scope,
        hold.prefix,
        hold.prefix_key,
        hold.country,
        hold.requests,
        hold.verified,
        hold.window_seconds,
        hold.event_id,
      ],
    );
    return rows[0]!;
  }

  /** The client's holds of a mode (both when undefined): the live ones and those that ended in the last days, newest first. */
  async list(clientId: string, mode?: Mode): Promise<HoldRow[]> {
    const { rows } = await this.pool.query<HoldRow>(
      `SELECT *, (released_at IS NULL AND held_until > now()) AS active FROM holds
       WHERE client_id = $1 AND ($2::text IS NULL OR mode = $2) AND held_at > now() - make_interval(days => $3)
       ORDER BY held_at DESC LIMIT 200`,
      [clientId, mode ?? null, RECENT_DAYS],
    );
    return rows;
  }

  async find(clientId: string, holdId: string): Promise<HoldRow | undefined> {
    const { rows } = await this.pool.query<HoldRow>(
      'SELECT *, (released_at IS NULL AND held_until > now()) AS active FROM holds WHERE hold_id = $1 AND client_id = $2',
      [holdId, clientId],
    );
    return rows[0];
  }

  /** Marks a live hold released (once); returns the hold as it is afterwards. */
  async release(clientId: string, holdId: string): Promise<HoldRow | undefined> {
    await this.pool.query(
      'UPDATE holds SET released_at = now() WHERE hold_id = $1 AND client_id = $2 AND released_at IS NULL AND held_until > now()',
      [holdId, clientId],
    );
    return this.find(clientId, holdId);
  }
}
