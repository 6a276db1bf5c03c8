import { inTransaction, type Pool, type PoolClient } from '@smsgw/platform';

export type Mode = 'live' | 'test';

export interface EndpointRow {
  endpoint_id: string;
  client_id: string;
  mode: Mode;
  url: string;
  events: string[];
  secret: string;
  enabled: boolean;
  description: string;
  /** Its events go in batches, a JSON array a POST. */
  batch: boolean;
  created_at: Date;
}

export interface NewEndpoint {
  endpointId: string;
  clientId: string;
  mode: Mode;
  url: string;
  events: string[];
  secret: string;
  description: string;
  batch: boolean;
}

const COLUMNS = 'endpoint_id, client_id, mode, url, events, secret, enabled, description, batch, created_at';

/** Ends an endpoint's pending deliveries, without an alert: the client chose it. */
async function endPending(tx: PoolClient, endpointId: string, reason: string): Promise<void> {
  await tx.query(
    `UPDATE deliveries SET state = 'failed', last_error = $2, next_attempt_at = NULL, lease_until = NULL, alert_state = 'none'
     WHERE endpoint_id = $1 AND state = 'pending'`,
    [endpointId, reason],
  );
}

export class EndpointRepository {
  constructor(private readonly pool: Pool) {}

  /**
   * Inserts the endpoint unless its client has `max` endpoints already (undefined then). The
   * client's inserts wait for each other (a transaction lock on its id), so that several at once
   * cannot all pass the count.
   */
  async insert(e: NewEndpoint, max: number): Promise<EndpointRow | undefined> {
    return inTransaction(this.pool, async (tx) => {
      await tx.query("SELECT pg_advisory_xact_lock(hashtextextended('webhook-endpoints:' || $1, 0))", [e.clientId]);
      const { rows } = await tx.query<EndpointRow>(
        `INSERT INTO endpoints (endpoint_id, client_id, mode, url, events, secret, description, batch)
         SELECT $1, $2, $3, $4, $5, $6, $7, $9
         WHERE (SELECT count(*) FROM endpoints WHERE client_id = $2 AND deleted_at IS NULL) < $8
         RETURNING ${COLUMNS}`,
        [e.endpointId, e.clientId, e.mode, e.url, e.events, e.secret, e.description, max, e.batch],
      );
      return rows[0];
    });
  }

  async list(clientId: string): Promise<EndpointRow[]> {
    const { rows } = await this.pool.query<EndpointRow>(
      `SELECT ${COLUMNS} FROM endpoints WHERE client_id = $1 AND deleted_at IS NULL ORDER BY created_at, endpoint_id`,
      [clientId],
    );
    return rows;
  }

  async get(clientId: string, endpointId: string): Promise<EndpointRow | undefined> {
    const { rows } = await this.pool.query<EndpointRow>(
      `SELECT ${COLUMNS} FROM endpoints WHERE client_id = $1 AND endpoint_id = $2 AND deleted_at IS NULL`,
      [clientId, endpointId],
    );
    return rows[0];
  }

  /** The live endpoints of these clients, in one query (a batch of events). */
  async forClients(clientIds: readonly string[]): Promise<EndpointRow[]> {
    if (clientIds.length === 0) return [];
    const { rows } = await this.pool.query<EndpointRow>({
      name: 'endpoints-for-clients',
      text: `SELECT ${COLUMNS} FROM endpoints WHERE client_id = ANY($1) AND deleted_at IS NULL AND enabled`,
      values: [clientIds],
    });
    return rows;
  }

  /** Changes an endpoint; disabling it ends its pending deliveries without an alert (as deleting does). */
  async update(
    clientId: string,
    endpointId: string,
    change: { url?: string; events?: string[]; enabled?: boolean; description?: string; batch?: boolean },
  ): Promise<EndpointRow | undefined> {
    return inTransaction(this.pool, async (tx) => {
      const { rows } = await tx.query<EndpointRow>(
        `UPDATE endpoints SET url = COALESCE($3, url), events = COALESCE($4, events),
                enabled = COALESCE($5, enabled), description = COALESCE($6, description), batch = COALESCE($7, batch)
         WHERE client_id = $1 AND endpoint_id = $2 AND deleted_at IS NULL RETURNING ${COLUMNS}`,
        [
          clientId,
          endpointId,
          change.url ?? null,
          change.events ?? null,
          change.enabled ?? null,
          change.description ?? null,
          change.batch ?? null,
        ],
      );
      if (rows[0] && change.enabled === false) await endPending(tx, endpointId, 'endpoint disabled');
      return rows[0];
    });
  }

  /** Soft delete (the delivery log keeps naming it); its pending deliveries end without an alert. */
  async delete(clientId: string, endpointId: string): Promise<boolean> {
    return inTransaction(this.pool, async (tx) => {
      const { rowCount } = await tx.query(
        `UPDATE endpoints SET deleted_at = now(), enabled = false WHERE client_id = $1 AND endpoint_id = $2 AND deleted_at IS NULL`,
        [clientId, endpointId],
      );
      if (!rowCount) return false;
      await endPending(tx, endpointId, 'endpoint deleted');
      return true;
    });
  }
}
