import https from 'node:https';
import { PairingError, PairingRefusedError } from './errors';

/** What the user gave to pair: a one-time code (from the pairing URL) or the client id and device password. */
export type PairingSecret = { pairingCode: string } | { clientId: string; devicePassword: string };

/** The optional `agent` field of a pairing request. */
export interface AgentInfo {
  name: string;
  version: string;
  driver: string;
}

export interface PairingRequest {
  /** Hub base URL, e.g. https://127.0.0.1:8444. */
  hubUrl: string;
  secret: PairingSecret;
  agent?: AgentInfo;
  /** Trusted CA certificates (PEM); undefined trusts Node's default store. */
  ca?: string[];
  timeoutMs?: number;
}

export interface PairingResult {
  device_id: string;
  device_token: string;
  ws_url: string;
}

const PAIR_PATH = '/v1/agent/pair';
const DEFAULT_TIMEOUT_MS = 15_000;
// A pairing answer is a few hundred bytes; anything much larger is not the hub.
const MAX_RESPONSE_BYTES = 64 * 1024;

/** Parses `https://<hub>/v1/agent/pair?code=<CODE>` into the hub base URL and the code. */
export function parsePairingUrl(pairingUrl: string): { hubUrl: string; pairingCode: string } {
  let url: URL;
  try {
    url = new URL(pairingUrl);
  } catch {
    throw new PairingError(`not a pairing URL: ${pairingUrl}`);
  }
  const code = url.searchParams.get('code');
  if (url.protocol !== 'https:' || !code) {
    throw new PairingError('a pairing URL looks like https://<hub>/v1/agent/pair?code=<CODE>');
  }
  return { hubUrl: url.origin, pairingCode: code };
}

/** POST /v1/agent/pair (PROTOCOL.md §1). */
export async function pair(request: PairingRequest): Promise<PairingResult> {
  const body = JSON.stringify({
    ...('pairingCode' in request.secret
      ? { pairing_code: request.secret.pairingCode }
      : { client_id: request.secret.clientId, device_password: request.secret.devicePassword }),
    ...(request.agent ? { agent: request.agent } : {}),
  });
  const url = new URL(PAIR_PATH, request.hubUrl);
  const { status, text, retryAfter } = await postJson(url, body, request.ca, request.timeoutMs ?? DEFAULT_TIMEOUT_MS);

  const answer = parseJson(text);
  if (status === 401) {
    throw new PairingRefusedError(`pairing refused: ${errorMessageOf(answer) ?? 'the hub answered 401'}`);
  }
  if (status === 429) {
    // Too many failed attempts from this address, or this code or password is locked for a while.
    throw new PairingError(
      `pairing refused for now: ${errorMessageOf(answer) ?? 'the hub answered 429'}` + (retryAfter ? `; try again in ${retryAfter} s` : ''),
    );
  }
  if (status !== 200) {
    throw new PairingError(`pairing failed: the hub answered HTTP ${status}: ${errorMessageOf(answer) ?? 'no details'}`);
  }
  if (!answer || typeof answer.device_id !== 'string' || typeof answer.device_token !== 'string' || typeof answer.ws_url !== 'string') {
    throw new PairingError('pairing failed: the hub answer lacks device_id, device_token or ws_url');
  }
  if (!answer.ws_url.startsWith('wss://')) {
    throw new PairingError(`pairing failed: the hub gave a ws_url that is not wss:// (${answer.ws_url})`);
  }
  return { device_id: answer.device_id, device_token: answer.device_token, ws_url: answer.ws_url };
}

function postJson(
  url: URL,
  body: string,
  ca: string[] | undefined,
  timeoutMs: number,
): Promise<{ status: number; text: string; retryAfter: string | undefined }> {
  return new Promise((resolve, reject) => {
    const req = https.request(
      url,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
        ...(ca ? { ca } : {}),
        // One request, once: no keep-alive socket left behind to hold the process open.
        agent: false,
        timeout: timeoutMs,
      },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > MAX_RESPONSE_BYTES) {
            req.destroy(new PairingError('pairing failed: the hub answer is too large'));
            return;
          }
          chunks.push(chunk);
        });
        res.on('end', () => {
          const retryAfter = res.headers['retry-after'];
          resolve({
            status: res.statusCode ?? 0,
            text: Buffer.concat(chunks).toString('utf8'),
            retryAfter: /^\d+$/.test(retryAfter ?? '') ? retryAfter : undefined,
          });
        });
        res.on('error', (error) => reject(networkError(url, error)));
      },
    );
    req.on('timeout', () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    req.on('error', (error) => reject(error instanceof PairingError ? error : networkError(url, error)));
    req.end(body);
  });
}

function networkError(url: URL, error: Error): PairingError {
  return new PairingError(`pairing failed: cannot reach the hub at ${url.origin}: ${error.message}`, { cause: error });
}

function parseJson(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

function errorMessageOf(answer: Record<string, unknown> | undefined): string | undefined {
  const error = answer?.error;
  if (typeof error !== 'object' || error === null) return undefined;
  const { code, message } = error as { code?: unknown; message?: unknown };
  if (typeof message === 'string' && typeof code === 'string') return `${message} (${code})`;
  return typeof message === 'string' ? message : typeof code === 'string' ? code : undefined;
}
