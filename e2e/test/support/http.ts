import http from 'node:http';
import https from 'node:https';
import { eventually as poll } from '@smsgw/testing';
import { assertMatchesOpenApi } from './openapi-validator';

export interface ApiResponse<T = Record<string, unknown>> {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: T;
  raw: string;
}

export interface ApiRequest {
  method?: string;
  headers?: Record<string, string | undefined>;
  body?: unknown;
  /** Raw text sent as the body, for malformed-input tests. */
  rawBody?: string;
}

/**
 * One real HTTP(S) request; the body is parsed as JSON when it is JSON. Every
 * answer of the API is checked against its OpenAPI document: a response that
 * does not match fails the test that received it.
 */
export function request(url: string, ca: string, req: ApiRequest = {}): Promise<ApiResponse> {
  const target = new URL(url);
  const payload = req.rawBody ?? (req.body === undefined ? undefined : JSON.stringify(req.body));
  const headers: Record<string, string> = { accept: 'application/json' };
  for (const [k, v] of Object.entries(req.headers ?? {})) if (v !== undefined) headers[k] = v;
  if (payload !== undefined) {
    headers['content-type'] ??= 'application/json';
    headers['content-length'] = String(Buffer.byteLength(payload));
  }
  const transport = target.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const r = transport.request(target, { method: req.method ?? (payload ? 'POST' : 'GET'), headers, ca, agent: false }, (res) => {
      let raw = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (raw += c));
      res.on('end', () => {
        let body: Record<string, unknown>;
        try {
          body = JSON.parse(raw) as Record<string, unknown>;
        } catch {
          body = {};
        }
        const status = res.statusCode ?? 0;
        try {
          if (target.pathname.startsWith('/v1/')) assertMatchesOpenApi(r.method, target.toString(), status, res.headers, body);
        } catch (err) {
          reject(err instanceof Error ? err : new Error(String(err)));
          return;
        }
        resolve({ status, headers: res.headers, body, raw });
      });
    });
    r.on('error', reject);
    if (payload !== undefined) r.write(payload);
    r.end();
  });
}

/**
 * Polls `probe` until it returns a value (undefined, as any falsy answer: not yet), or fails after
 * `timeoutMs`: packages/testing's `eventually` with the system's defaults, 20 s and a probe's
 * errors tried again (a service restarting refuses connections meanwhile).
 */
export const eventually = <T>(probe: () => Promise<T | undefined>, timeoutMs = 20_000, what = 'condition', intervalMs = 100): Promise<T> =>
  poll(probe, timeoutMs, what, { intervalMs, retryErrors: true });
