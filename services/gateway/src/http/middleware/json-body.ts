import { AppError } from '@smsgw/platform';
import type { GatewayMiddleware } from '../context';

export const MAX_BODY_BYTES = 1024 * 1024;

/** Reads a JSON object body (at most 1 MB) into ctx.state.body. */
export const jsonBody: GatewayMiddleware = async (ctx, next) => {
  if (ctx.method !== 'POST' && ctx.method !== 'PUT' && ctx.method !== 'PATCH') return next();
  const declared = Number(ctx.get('content-length') || 0);
  if (declared > MAX_BODY_BYTES) throw new AppError('PAYLOAD_TOO_LARGE');
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of ctx.req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) throw new AppError('PAYLOAD_TOO_LARGE');
    chunks.push(chunk);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    throw new AppError('INVALID_JSON');
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new AppError('INVALID_JSON');
  ctx.state.body = parsed as Record<string, unknown>;
  return next();
};
