import type { Pool } from '@smsgw/platform';

export interface AuditRow {
  event_id: string;
  at: Date;
  actor: string;
  address: string;
  action: string;
  target: string;
  details: Record<string, unknown>;
}

export interface NewAuditEvent {
  clientId: string;
  actorUserId?: string;
  actor: string;
  address: string;
  action: string;
  target: string;
  details: Record<string, unknown>;
}

export interface AuditFilter {
  action?: string;
  /** The actor's e-mail (or "operator"), as recorded. */
  actor?: string;
  from?: Date;
  to?: Date;
  beforeEventId?: string;
  limit: number;
}

/** Inserts an event with `db` (a transaction's client, to record it with what it records). */
export async function insertAuditEvent(db: Pick<Pool, 'query'>, event: NewAuditEvent): Promise<void> {
  await db.query(
    `INSERT INTO audit_events (client_id, actor_user_id, actor, address, action, target, details) VALUES ($1, $2, $3, $4, $5, $6, $7)`,
    [event.clientId, event.actorUserId ?? null, event.actor, event.address, event.action, event.target, JSON.stringify(event.details)],
  );
}

/** The audit log: append-only rows (migration 009's trigger refuses changes), kept a year. */
export class AuditRepository {
  constructor(private readonly pool: Pool) {}

  /** Records an event, and drops the client's events past the year (one indexed statement, rarely any row). */
  async record(event: NewAuditEvent): Promise<void> {
    await this.pool.query(
      `WITH expired AS (DELETE FROM audit_events WHERE client_id = $1 AND at < now() - interval '1 year')
       INSERT INTO audit_events (client_id, actor_user_id, actor, address, action, target, details)
       VALUES ($1, $2, $3, $4, $5, $6, $7)`,
      [event.clientId, event.actorUserId ?? null, event.actor, event.address, event.action, event.target, JSON.stringify(event.details)],
    );
  }

  /** Drops every event past the year (the retention; migration 009's trigger refuses any younger row). */
  async purge(): Promise<number> {
    const { rowCount } = await this.pool.query(`DELETE FROM audit_events WHERE at < now() - interval '1 year'`);
    return rowCount ?? 0;
  }

  /** The client's events of the last year, newest first. */
  async list(clientId: string, filter: AuditFilter): Promise<AuditRow[]> {
    const { rows } = await this.pool.query<AuditRow>(
      `SELECT event_id::text, at, actor, address, action, target, details FROM audit_events
       WHERE client_id = $1 AND at >= now() - interval '1 year'
         AND ($2::text IS NULL OR action = $2) AND ($3::timestamptz IS NULL OR at >= $3)
         AND ($4::timestamptz IS NULL OR at < $4) AND ($5::bigint IS NULL OR event_id < $5)
         AND ($7::text IS NULL OR lower(actor) = lower($7))
       ORDER BY at DESC, event_id DESC LIMIT $6`,
      [
        clientId,
        filter.action ?? null,
        filter.from ?? null,
        filter.to ?? null,
        filter.beforeEventId ?? null,
        filter.limit,
        filter.actor ?? null,
      ],
    );
    return rows;
  }
}
