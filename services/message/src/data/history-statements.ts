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

/** The WHERE clause of a history filter, with the created_at bounds of `range`. */
export function messageConditions(
  params: Params,
  clientId: string,
  mode: Mode,
  filter: HistoryFilter,
  range: CreatedRange,
  way: TextWay = 'row',
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
    where.push(
      way === 'texts'
        ? `message_id IN (SELECT t.message_id FROM message_texts t WHERE t.client_id = ${client} AND t.body ILIKE ${pattern} ESCAPE '\\')`
        : `body ILIKE ${pattern} ESCAPE '\\'`,
    );
  }
  return where.join(' AND ');
}

/** A statement of a history page or count, written for one way of finding a text. */
export type Statement = (way: TextWay) => { text: string; values: unknown[] };

/** One page of the history, newest first. */
export function pageStatement(clientId: string, mode: Mode, filter: HistoryFilter, limit: number, offset: number): Statement {
  return (way) => {
    const params = new Params();
    const condition = messageConditions(params, clientId, mode, filter, filter, way);
    return {
      text: `SELECT * FROM messages WHERE ${condition}
             ORDER BY created_at DESC, message_id DESC
             LIMIT ${params.add(limit)} OFFSET ${params.add(offset)}`,
      values: params.values,
    };
  };
}

/** Whether a search filters on its text and nothing else. */
export function textAlone(filter: HistoryFilter): boolean {
  return !filter.status && !filter.to && !filter.deviceId && !filter.from && !filter.until;
}

/**
 * A search's matches, counted up to the cap. On the text alone, `message_texts` is counted by
 * itself either way: its narrow rows are read by their index or in full, whichever costs less.
 */
export function matchCountStatement(clientId: string, mode: Mode, filter: HistoryFilter): Statement {
  return (way) => {
    const params = new Params();
    const matches = textAlone(filter)
      ? `SELECT 1 FROM message_texts WHERE client_id = ${params.add(clientId)} AND mode = ${params.add(mode)}
           AND body ILIKE ${params.add(filter.textPattern)} ESCAPE '\\'`
      : `SELECT 1 FROM messages WHERE ${messageConditions(params, clientId, mode, filter, filter, way)}`;
    return {
      text: `SELECT count(*)::int AS total FROM (${matches} LIMIT ${params.add(SEARCH_MAX_RESULTS)}) AS matches`,
      values: params.values,
    };
  };
}
