import { createHash } from 'node:crypto';
import { AppError, FixedWindowCounter, type Redis } from '@smsgw/platform';
import type { GatewayMiddleware } from '../context';

/** What the answers kept in Redis may take: one answer, one client's in a window of the TTL, every client's in it. */
export interface IdempotencyBudget {
  maxAnswerBytes: number;
  clientBytes: number;
  totalBytes: number;
}

/** Besides its text, what one kept answer costs Redis (its key and the entry), counted against the budgets. */
const ENTRY_OVERHEAD_BYTES = 200;

interface Stored {
  state: 'pending' | 'done';
  fingerprint: string;
  status?: number;
  body?: unknown;
}

/** JSON with sorted keys, so that `{"a":1,"b":2}` and `{"b":2,"a":1}` are the same request. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/**
 * `Idempotency-Key` on the sending endpoints. The truth is the message
 * service: it stores the key with the message (or batch) in the same
 * statement, so a send made again with its key, even after a lost answer (a
 * deadline, a gateway gone), gets the message stored the first time and
 * stores nothing (or 422 IDEMPOTENCY_KEY_REUSED for another body). Redis here
 * is the fast path: while the first request runs, the same key answers 409
 * IDEMPOTENCY_IN_PROGRESS (the marker lasts `inProgressSeconds`, a few
 * deadlines, so a gateway that died mid-request does not hold the key for
 * long); once it succeeded, its response is answered again for the TTL
 * without asking the message service; the same key with another body is
 * refused with 422. A request that failed drops the marker: its retry goes
 * to the message service, which answers what it stored, if anything.
 *
 * What Redis keeps is bounded (`budget`): an answer over `maxAnswerBytes` is
 * kept as done without its body, and past a client's bytes in the TTL's
 * window (or every client's), nothing is kept; either way a replay goes to
 * the message service, which answers what it stored then.
 */
export function idempotency(
  redis: Redis,
  options: { ttlSeconds: number; inProgressSeconds: number; budget: IdempotencyBudget },
): GatewayMiddleware {
  const kept = new FixedWindowCounter(redis, { windowMs: options.ttlSeconds * 1000 });
  return async (ctx, next) => {
    const key = ctx.get('idempotency-key');
    if (!key) return next();
    if (key.length > 255) {
      throw new AppError('INVALID_IDEMPOTENCY_KEY', { details: [{ field: 'Idempotency-Key', code: 'INVALID_IDEMPOTENCY_KEY' }] });
    }
    const auth = ctx.state.auth!;
    const fingerprint = sha256(`${ctx.method} ${ctx.path}\n${ctx.get('x-device-id')}\n${canonicalJson(ctx.state.body)}`);
    const storeKey = `idempotency:${auth.clientId}:${auth.mode}:${sha256(key)}`;
    const claimed = await redis.set(
      storeKey,
      JSON.stringify({ state: 'pending', fingerprint } satisfies Stored),
      'EX',
      options.inProgressSeconds,
      'NX',
    );
    ctx.state.idempotency = { key, requestHash: fingerprint };
    if (!claimed) {
      const text = await redis.get(storeKey);
      const stored = text ? (JSON.parse(text) as Stored) : undefined;
      if (stored && stored.fingerprint !== fingerprint) throw new AppError('IDEMPOTENCY_KEY_REUSED');
      if (!stored || stored.state === 'pending') throw new AppError('IDEMPOTENCY_IN_PROGRESS', { retryAfterSeconds: 1 });
      // Done, its answer not kept here: the message service answers what it stored the first time.
      if (stored.body === undefined) return next();
      ctx.status = stored.status ?? 200;
      ctx.body = stored.body;
      ctx.set('Idempotent-Replayed', 'true');
      return;
    }
    try {
      await next();
    } catch (err) {
      await redis.del(storeKey);
      throw err;
    }
    const whole = JSON.stringify({ state: 'done', fingerprint, status: ctx.status, body: ctx.body } satisfies Stored);
    const value = whole.length <= options.budget.maxAnswerBytes ? whole : JSON.stringify({ state: 'done', fingerprint } satisfies Stored);
    const { allowed } = await kept.take(
      [`idempotency-budget:${auth.clientId}`, 'idempotency-budget:all'],
      [options.budget.clientBytes, options.budget.totalBytes],
      value.length + ENTRY_OVERHEAD_BYTES,
    );
    if (allowed) await redis.set(storeKey, value, 'EX', options.ttlSeconds);
    else await redis.del(storeKey);
  };
}
