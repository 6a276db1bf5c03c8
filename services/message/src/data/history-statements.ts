import type { CreatedRange } from '@smsgw/platform';
import { SEARCH_MAX_RESULTS, type HistoryFilter } from '../domain/history';
import type { Mode } from '../domain/message-row';

/** Positional parameters of a statement built piece by piece. */
export class Params {
  readonly values: unknown[] = [];

  add(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }
}

/**
 * Two ways to find a text, the same messages either way (`message_texts` holds each message's text
 * as written, never changed): through `message_texts` and its trigram index, or by reading the
 * message's own copy of the text as the history is walked.
 */
export type TextWay = 'texts' | 'row';

/**
 * Where a condition reads a search's text: on the row; or in `message_texts`, a message's own text
 * or its batch's, when the batch's messages share one (migration 024). The `texts` way is a
 * statement of two parts, one for each: in one subquery offering both, Postgres cannot tell how
 * many messages it gives, and guesses too few.
 */
type TextSource = 'row' | 'own' | 'batch';

/** The WHERE clause of a history filter, with the created_at bounds of `range`. */
export function messageConditions(
  params: Params,
  clientId: string,
  mode: Mode,
  filter: HistoryFilter,
  range: CreatedRange,
  source: TextSource = 'row',
): string {
  const client = params.add(clientId);
  const where = [`client_id = ${client}`, `mode = ${params.add(mode)}`];
  if (filter.status) where.push(`status = ${params.add(filter.status)}`);
  if (filter.to) where.push(`to_number = ${params.add(filter.to)}`);
  if (filter.deviceId) where.push(`device_id = ${params.add(filter.deviceId)}`);
  if (range.from) where.push(`created_at >= ${params.add(range.from)}`);
  if (range.until) where.push(`created_at < ${params.add(range.until)}`);
  if (filter.textPattern) {
    const pattern = params.add(filter.textPattern);
    const texts = `SELECT t.message_id FROM message_texts t WHERE t.client_id = ${client} AND t.body ILIKE ${pattern} ESCAPE '\\'`;
    if (source === 'row') where.push(`body ILIKE ${pattern} ESCAPE '\\'`);
    else if (source === 'own') where.push(`message_id IN (${texts} AND NOT t.batch)`);
    else where.push(`batch_id IN (${texts} AND t.batch)`);
  }
  return where.join(' AND ');
}

/** A statement of a history page or count, written for one way of finding a text. */
export type Statement = (way: TextWay) => { text: string; values: unknown[] };

/** One page of the history, newest first. */
export function pageStatement(clientId: string, mode: Mode, filter: HistoryFilter, limit: number, offset: number): Statement {
  return (way) => {
    const params = new Params();
    const newest = (source: TextSource, upTo: number) =>
      `SELECT * FROM messages WHERE ${messageConditions(params, clientId, mode, filter, filter, source)}
       ORDER BY created_at DESC, message_id DESC LIMIT ${params.add(upTo)}`;
    const text =
      way === 'row'
        ? `${newest('row', limit)} OFFSET ${params.add(offset)}`
        : `(${newest('own', offset + limit)}) UNION ALL (${newest('batch', offset + limit)})
           ORDER BY created_at DESC, message_id DESC LIMIT ${params.add(limit)} OFFSET ${params.add(offset)}`;
    return { text, values: params.values };
  };
}

/** Whether a search filters on its text and nothing else. */
export function textAlone(filter: HistoryFilter): boolean {
  return !filter.status && !filter.to && !filter.deviceId && !filter.from && !filter.until;
}

/**
 * A search's matches, counted up to the cap, each part under its own limit. On the text alone,
 * `message_texts` is counted by itself either way: its narrow rows are read by their index or in
 * full, whichever costs less.
 */
export function matchCountStatement(clientId: string, mode: Mode, filter: HistoryFilter): Statement {
  return (way) => {
    const params = new Params();
    const upTo = (rows: string) => `(SELECT count(*) FROM (${rows} LIMIT ${params.add(SEARCH_MAX_RESULTS)}) AS matches)`;
    const matching = (source: TextSource) =>
      `SELECT 1 FROM messages WHERE ${messageConditions(params, clientId, mode, filter, filter, source)}`;
    if (way === 'row' && !textAlone(filter)) return { text: `SELECT ${upTo(matching('row'))}::int AS total`, values: params.values };
    const own = textAlone(filter)
      ? `SELECT 1 FROM message_texts WHERE client_id = ${params.add(clientId)} AND mode = ${params.add(mode)}
           AND body ILIKE ${params.add(filter.textPattern)} ESCAPE '\\' AND NOT batch`
      : matching('own');
    return {
      text: `SELECT least(${upTo(own)} + ${upTo(matching('batch'))}, ${params.add(SEARCH_MAX_RESULTS)})::int AS total`,
      values: params.values,
    };
  };
}
