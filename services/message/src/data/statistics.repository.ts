import { quoteIdent, type Pool } from '@smsgw/platform';

/** What Postgres knows of this service's tables for planning. */
export class StatisticsRepository {
  constructor(private readonly pool: Pool) {}

  /**
   * Of `tables` (in the service's schema), those never analysed, each with
   * the number of live rows the statistics system counts in it now.
   * `reltuples` is -1 until a table's first ANALYZE or VACUUM.
   */
  async neverAnalysed(tables: readonly string[]): Promise<{ table: string; rows: number }[]> {
    const { rows } = await this.pool.query<{ table: string; rows: number }>(
      `SELECT t.name AS table, coalesce(s.n_live_tup, 0)::int AS rows
       FROM unnest($1::text[]) AS t(name)
       JOIN pg_class c ON c.oid = to_regclass(quote_ident(t.name))
       LEFT JOIN pg_stat_user_tables s ON s.relid = c.oid
       WHERE c.reltuples < 0`,
      [tables],
    );
    return rows;
  }

  async analyse(table: string): Promise<void> {
    await this.pool.query(`ANALYZE ${quoteIdent(table)}`);
  }
}
