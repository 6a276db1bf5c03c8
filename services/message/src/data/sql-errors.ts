import { AppError } from '@smsgw/platform';

/**
 * SQLSTATE classes of a statement refused for what it carries (cardinality,
 * data, integrity), as opposed to the database being unreachable or busy.
 */
const REFUSED_DATA = /^(21|22|23)/;

/** The SQLSTATE of a Postgres error, undefined for any other error. */
export function sqlState(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) ? code : undefined;
}

/** Whether Postgres refused the statement for what it carries (and would refuse it again). */
export function isRefusedData(err: unknown): boolean {
  const state = sqlState(err);
  return state !== undefined && REFUSED_DATA.test(state);
}

/** The error a client sees for a statement Postgres refused. */
export function refusedError(err: unknown): AppError {
  if (err instanceof AppError) return err;
  const state = sqlState(err);
  // 22021: a byte sequence not valid in UTF-8 (text); 22P05: a character jsonb cannot hold (\u0000).
  if (state === '22021' || state === '22P05') return new AppError('INVALID_CHARACTER', { cause: err });
  if (state === '22003' || (state === '23514' && (err as { constraint?: string }).constraint === 'messages_priority_check')) {
    return new AppError('INVALID_PRIORITY', { details: [{ field: 'priority', code: 'INVALID_PRIORITY' }], cause: err });
  }
  if (state && REFUSED_DATA.test(state))
    return new AppError('VALIDATION_ERROR', { message: 'Données refusées par la base de données.', cause: err });
  return new AppError('INTERNAL_ERROR', { cause: err });
}
