import pg from 'pg';
import { connectionOptions, quoteIdent, type Pool } from '@smsgw/platform';
import { DATABASE_URL } from './servers';

export interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  Plans?: PlanNode[];
}

/** How each scan of `relation` in the plan reads it: an index's name, or `seq`. */
export function scansOf(node: PlanNode, relation: string, found: string[] = []): string[] {
  const indexesBelow = (n: PlanNode): string[] => [
    ...(n['Index Name'] ? [n['Index Name']] : []),
    ...(n.Plans ?? []).flatMap((c) => indexesBelow(c)),
  ];
  if (node['Relation Name'] === relation) {
    if (node['Node Type'] === 'Seq Scan') found.push('seq');
    else if (node['Node Type'] === 'Bitmap Heap Scan') found.push(...indexesBelow(node));
    else if (node['Index Name']) found.push(node['Index Name']);
  }
  for (const child of node.Plans ?? []) scansOf(child, relation, found);
  return found;
}

/**
 * One connection to `schema` whose every plan comes back, as auto_explain
 * logs it, into `plans`. Each plan is generic (as a prepared statement's
 * becomes after five calls), or with `{ custom: true }` made for the
 * statement's values, as Postgres plans a statement sent without a name.
 * `settings` are a service's own (its `createPool` settings).
 */
export function explainedPool(
  schema: string,
  { custom = false, settings = {} }: { custom?: boolean; settings?: Readonly<Record<string, string>> } = {},
): { pool: Pool; plans: { text: string; plan: PlanNode }[] } {
  const plans: { text: string; plan: PlanNode }[] = [];
  const pool = new pg.Pool({
    connectionString: DATABASE_URL,
    max: 1,
    options: connectionOptions({
      search_path: `${quoteIdent(schema)},public`,
      ...settings,
      session_preload_libraries: 'auto_explain',
      'auto_explain.log_min_duration': '0',
      'auto_explain.log_format': 'json',
      plan_cache_mode: custom ? 'force_custom_plan' : 'force_generic_plan',
      client_min_messages: 'log',
    }),
  });
  pool.on('connect', (client) =>
    client.on('notice', (notice) => {
      const json = notice.message?.split('plan:\n')[1];
      if (!json) return;
      const parsed = JSON.parse(json) as { 'Query Text': string; Plan: PlanNode };
      plans.push({ text: parsed['Query Text'], plan: parsed.Plan });
    }),
  );
  return { pool, plans };
}
