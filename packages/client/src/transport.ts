import { randomUUID } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import { ApiError, ConnectionError, SmsGatewayError, TimeoutError } from './errors';
import type { ErrorDetail } from './gen/openapi-types';
import { parseRetryAfter, retryDelay, type BackoffSettings, type Outcome, type RetryPolicy } from './retry';

/** Options of one call; every method takes them as its last argument. */
export interface RequestOptions {
  /**
   * The Idempotency-Key of a send (send, send-bulk, send-bulk-personalized, send-otp). Without it
   * the library makes one; either way every retry of the call reuses it. Give your own to make a
   * send safe to repeat across processes (a job that may run twice).
   */
  idempotencyKey?: string;
  /** X-Device-ID: the phone that sends (sends and auth.test); overrides the client's deviceId. */
  deviceId?: string;
  /** X-Request-ID to correlate with the gateway's logs (`A-Z a-z 0-9 . _ : -`, up to 128). */
  requestId?: string;
  /** Aborts the call (and its retries). */
  signal?: AbortSignal;
  /** Milliseconds each attempt may take; overrides the client's timeoutMs. */
  timeoutMs?: number;
  /** Retries after the first attempt; overrides the client's maxRetries. */
  maxRetries?: number;
}

/** What the gateway said besides the body. */
export interface ResponseInfo {
  status: number;
  /** X-Request-ID: quote it when you report a problem. */
  requestId: string | undefined;
  /** The Idempotency-Key the call was sent with (sends only). */
  idempotencyKey: string | undefined;
  /** True when the gateway answered a stored earlier answer (Idempotent-Replayed): nothing was sent again. */
  replayed: boolean;
  /** Attempts made, retries included. */
  attempts: number;
  rateLimit: { limit: number; remaining: number; reset: number } | undefined;
}

/** An answer with `lastResponse`, which JSON.stringify leaves out. */
export type WithResponse<T> = T & { readonly lastResponse: ResponseInfo };

export interface TransportConfig {
  baseUrl: URL;
  apiKey: string;
  clientId: string;
  deviceId: string | undefined;
  ca: string | Buffer | undefined;
  timeoutMs: number;
  maxRetries: number;
  userAgent: string;
  backoff: BackoffSettings;
}

export interface Call {
  method: 'GET' | 'POST' | 'DELETE';
  path: string;
  query?: Record<string, string | number | undefined>;
  body?: unknown;
  policy: RetryPolicy;
  /** The call takes an Idempotency-Key (one is made when none is given). */
  idempotent: boolean;
  /** The call takes X-Device-ID. */
  device: boolean;
}

interface RawAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

/** The largest answer read: the API's are a few kilobytes; a page of history is under 200 KB. */
const MAX_ANSWER_BYTES = 8 * 1024 * 1024;

const header = (h: http.IncomingHttpHeaders, name: string): string | undefined => {
  const v = h[name];
  return Array.isArray(v) ? v[0] : v;
};

/** HTTPS requests with the client's credentials, retried as retry.ts says. */
export class Transport {
  private readonly agent: http.Agent;

  constructor(private readonly config: TransportConfig) {
    const isHttps = config.baseUrl.protocol === 'https:';
    this.agent = isHttps
      ? new https.Agent({ keepAlive: true, ...(config.ca ? { ca: config.ca } : {}) })
      : new http.Agent({ keepAlive: true });
  }

  async request<T extends object>(call: Call, options: RequestOptions = {}): Promise<WithResponse<T>> {
    const url = new URL(call.path.replace(/^\//, ''), this.config.baseUrl);
    for (const [k, v] of Object.entries(call.query ?? {})) if (v !== undefined && v !== '') url.searchParams.set(k, String(v));
    const payload = call.body === undefined ? undefined : Buffer.from(JSON.stringify(call.body), 'utf8');
    const idempotencyKey = call.idempotent ? (options.idempotencyKey ?? randomUUID()) : undefined;
    const deviceId = call.device ? (options.deviceId ?? this.config.deviceId) : undefined;
    const headers: Record<string, string> = {
      accept: 'application/json',
      'user-agent': this.config.userAgent,
      'x-api-key': this.config.apiKey,
      'x-client-id': this.config.clientId,
      ...(payload ? { 'content-type': 'application/json', 'content-length': String(payload.length) } : {}),
      ...(idempotencyKey ? { 'idempotency-key': idempotencyKey } : {}),
      ...(deviceId ? { 'x-device-id': deviceId } : {}),
      ...(options.requestId ? { 'x-request-id': options.requestId } : {}),
    };
    const maxRetries = options.maxRetries ?? this.config.maxRetries;
    const timeoutMs = options.timeoutMs ?? this.config.timeoutMs;

    for (let attempt = 1; ; attempt++) {
      let answer: RawAnswer;
      try {
        answer = await this.once(url, call.method, headers, payload, timeoutMs, call.policy, options.signal);
      } catch (err) {
        if (!(err instanceof ConnectionError) || attempt > maxRetries) throw err;
        const delay = retryDelay({ kind: 'network', connected: err.connected }, attempt - 1, call.policy, this.config.backoff);
        if (delay === undefined) throw err;
        await sleep(delay, options.signal);
        continue;
      }
      const info = responseInfo(answer, idempotencyKey, attempt);
      if (answer.status >= 200 && answer.status < 300) {
        const body = parseJson(answer.body);
        if (!body || typeof body !== 'object') {
          throw new ApiError({
            status: answer.status,
            code: 'UNEXPECTED_RESPONSE',
            message: 'the answer is not a JSON object',
            requestId: info.requestId,
          });
        }
        Object.defineProperty(body, 'lastResponse', { value: info, enumerable: false });
        return body as WithResponse<T>;
      }
      const error = apiError(answer, info.requestId);
      const outcome: Outcome = {
        kind: 'answer',
        status: answer.status,
        code: error.code,
        retryAfterMs: parseRetryAfter(header(answer.headers, 'retry-after')),
      };
      const delay = attempt > maxRetries ? undefined : retryDelay(outcome, attempt - 1, call.policy, this.config.backoff);
      if (delay === undefined) throw error;
      await sleep(delay, options.signal);
    }
  }

  /** Closes idle connections; the client may still be used afterwards (new ones are opened). */
  close(): void {
    this.agent.destroy();
  }

  private once(
    url: URL,
    method: string,
    headers: Record<string, string>,
    payload: Buffer | undefined,
    timeoutMs: number,
    policy: RetryPolicy,
    signal: AbortSignal | undefined,
  ): Promise<RawAnswer> {
    if (signal?.aborted) return Promise.reject(abortError(signal));
    const isHttps = url.protocol === 'https:';
    const transport = isHttps ? https : http;
    // A `once` request gets a connection of its own: on a reused keep-alive connection, a reset
    // cannot tell whether the gateway read the request, and such a request is not retried.
    const agent = policy === 'once' ? false : this.agent;
    return new Promise<RawAnswer>((resolve, reject) => {
      let connected = false;
      let settled = false;
      const fail = (err: Error) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        reject(err);
      };
      const req = transport.request(
        url,
        { method, headers, agent, ...(isHttps && this.config.ca ? { ca: this.config.ca } : {}) },
        (res) => {
          const chunks: Buffer[] = [];
          let size = 0;
          res.on('data', (c: Buffer) => {
            size += c.length;
            if (size > MAX_ANSWER_BYTES) req.destroy(new ConnectionError(`the answer is larger than ${MAX_ANSWER_BYTES} bytes`));
            else chunks.push(c);
          });
          res.on('error', (err) => fail(connectionError(err, true)));
          res.on('end', () => {
            if (settled) return;
            settled = true;
            clearTimeout(timer);
            signal?.removeEventListener('abort', onAbort);
            resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) });
          });
        },
      );
      const onAbort = () => req.destroy(abortError(signal!));
      signal?.addEventListener('abort', onAbort, { once: true });
      const timer = setTimeout(() => {
        const err = new TimeoutError(`no answer within ${timeoutMs} ms`);
        err.connected = connected;
        req.destroy(err);
      }, timeoutMs);
      req.on('socket', (socket) => {
        if (!socket.connecting) connected = true;
        else socket.once(isHttps ? 'secureConnect' : 'connect', () => (connected = true));
      });
      req.on('error', (err) => {
        if (err instanceof SmsGatewayError || err.name === 'AbortError') fail(err);
        else fail(connectionError(err, connected));
      });
      req.end(payload);
    });
  }
}

function connectionError(err: Error, connected: boolean): ConnectionError {
  const e = new ConnectionError(`no answer from the gateway: ${err.message}`, { cause: err });
  e.connected = connected;
  return e;
}

function abortError(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  if (reason instanceof Error) return reason;
  const err = new Error('the call was aborted');
  err.name = 'AbortError';
  return err;
}

function parseJson(body: Buffer): unknown {
  try {
    return JSON.parse(body.toString('utf8'));
  } catch {
    return undefined;
  }
}

function responseInfo(answer: RawAnswer, idempotencyKey: string | undefined, attempts: number): ResponseInfo {
  const h = answer.headers;
  const limit = header(h, 'ratelimit-limit');
  return {
    status: answer.status,
    requestId: header(h, 'x-request-id'),
    idempotencyKey,
    replayed: header(h, 'idempotent-replayed') === 'true',
    attempts,
    rateLimit:
      limit === undefined
        ? undefined
        : {
            limit: Number(limit),
            remaining: Number(header(h, 'ratelimit-remaining') ?? 0),
            reset: Number(header(h, 'ratelimit-reset') ?? 0),
          },
  };
}

function apiError(answer: RawAnswer, requestId: string | undefined): ApiError {
  const body = parseJson(answer.body) as { error?: { code?: unknown; message?: unknown; details?: unknown } } | undefined;
  const envelope = body && typeof body === 'object' ? body.error : undefined;
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(answer.headers)) if (v !== undefined) headers[k] = Array.isArray(v) ? v.join(', ') : v;
  const retryAfterMs = parseRetryAfter(headers['retry-after']);
  return ApiError.of({
    status: answer.status,
    code: typeof envelope?.code === 'string' ? envelope.code : 'UNEXPECTED_RESPONSE',
    message:
      typeof envelope?.message === 'string'
        ? envelope.message
        : `HTTP ${answer.status}: ${answer.body.toString('utf8').slice(0, 200) || 'no body'}`,
    details: Array.isArray(envelope?.details) ? (envelope.details as ErrorDetail[]) : [],
    requestId,
    retryAfter: retryAfterMs === undefined ? undefined : retryAfterMs / 1000,
    headers,
  });
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  if (signal?.aborted) return Promise.reject(abortError(signal));
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(abortError(signal!));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
