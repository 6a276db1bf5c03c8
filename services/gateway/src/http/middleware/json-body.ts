import type { IncomingMessage } from 'node:http';
import { AppError, isStorableText } from '@smsgw/platform';
import type { GatewayMiddleware } from '../context';

export const MAX_BODY_BYTES = 1024 * 1024;

/** Reads a JSON object body (at most 1 MB) into ctx.state.body. */
export const jsonBody: GatewayMiddleware = async (ctx, next) => {
  if (ctx.method !== 'POST' && ctx.method !== 'PUT' && ctx.method !== 'PATCH') return next();
  const declared = Number(ctx.get('content-length') || 0);
  if (declared > MAX_BODY_BYTES) throw new AppError('PAYLOAD_TOO_LARGE');
  const raw = await readBody(ctx.req);
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw.toString('utf8'));
  } catch {
    throw new AppError('INVALID_JSON');
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new AppError('INVALID_JSON');
  refuseUnstorable(parsed);
  ctx.state.body = parsed as Record<string, unknown>;
  return next();
};

/** Deeper than any field of this API needs (metadata is 1 KB at most); deeper still cannot be serialised again. */
export const MAX_DEPTH = 64;

/**
 * Refuses, for any field, what no field of this API accepts and what would
 * fail further on rather than be refused: a character the database cannot
 * store (INVALID_CHARACTER: U+0000 or a lone surrogate, see isStorableText)
 * and nesting deeper than MAX_DEPTH (JSON.stringify overflows its stack).
 * Iterative, so that a deep body cannot overflow here.
 */
function refuseUnstorable(root: object): void {
  const stack: { value: unknown; path: string; depth: number }[] = [{ value: root, path: '', depth: 0 }];
  while (stack.length > 0) {
    const { value, path, depth } = stack.pop()!;
    if (typeof value === 'string') {
      if (!isStorableText(value)) throw invalidCharacter(path);
      continue;
    }
    if (!value || typeof value !== 'object') continue;
    if (depth >= MAX_DEPTH) throw invalidField(path, `Structure imbriquée sur plus de ${MAX_DEPTH} niveaux.`);
    for (const [key, inner] of Object.entries(value)) {
      const at = Array.isArray(value) ? `${path}[${key}]` : path ? `${path}.${key}` : key;
      if (!isStorableText(key)) throw invalidCharacter(at);
      stack.push({ value: inner, path: at, depth: depth + 1 });
    }
  }
}

/** Names the field as the send validation does: metadata as a whole, other fields by their path. */
function invalidCharacter(path: string): AppError {
  const inMetadata = /^(.*?\bmetadata)\b/.exec(path);
  const field = inMetadata ? inMetadata[1]! : path;
  return new AppError('INVALID_CHARACTER', { details: [{ field: readableField(field), code: 'INVALID_CHARACTER' }] });
}

function readableField(field: string): string {
  // A NUL or lone surrogate in a key is not repeated back as such.
  // eslint-disable-next-line no-control-regex -- U+0000 is what this escapes
  return field.replace(/[\u0000\ud800-\udfff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).slice(0, 200);
}

function invalidField(field: string, message: string): AppError {
  return new AppError('VALIDATION_ERROR', { details: [{ field: readableField(field), code: 'VALIDATION_ERROR', message }] });
}

/** The whole body, or PAYLOAD_TOO_LARGE past MAX_BODY_BYTES (the rest is then not read). */
function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        cleanup();
        req.resume();
        reject(new AppError('PAYLOAD_TOO_LARGE'));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      cleanup();
      resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size));
    };
    const onError = (err: Error) => {
      cleanup();
      reject(err);
    };
    const cleanup = () => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
  });
}
