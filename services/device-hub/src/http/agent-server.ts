import fs from 'node:fs';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import https from 'node:https';
import type { Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';
import {
  AppError,
  ERROR_CATALOG,
  requestOrigin,
  TrustedProxies,
  type ErrorCode,
  type Logger,
  type RequestOrigin,
  type TlsSettings,
} from '@smsgw/platform';
import type { AuthenticatedDevice } from '../use-cases/pairing.use-case';
import type { TicketKeyRing } from './ticket-keys';
import { PROTOCOL_VERSION } from '../sessions/agent-session';

export const AGENT_SUBPROTOCOL = 'smsgw.agent.v1';
const MAX_BODY = 16 * 1024;
/**
 * How long a phone may come back with its TLS session (seconds): 7 days, the longest a TLS 1.3
 * ticket may live (RFC 8446 §4.6.1), so the longest a client keeps one. A phone receives its
 * ticket when it connects and keeps that connection for hours or days, so a restart must find the
 * ticket still good: Node's default, 300 s, would make almost every phone of a restart do a full
 * handshake. It costs no memory: the session lives in the phone's ticket, Node's server keeps none.
 */
const TLS_SESSION_TIMEOUT_S = 7 * 24 * 3600;
/**
 * Resumption checks that a session was issued in the same context; Node's default context is a
 * hash of the process's command line, which another replica or version need not share.
 */
const TLS_SESSION_ID_CONTEXT = 'smsgw-device-hub';
export { readTicketKeys } from './ticket-keys';

export interface AgentServerDeps {
  /**
   * Behind a proxy, requests it did not receive over HTTPS are refused, and the client's address is
   * read from `X-Forwarded-For`, both believed from trusted proxies only (platform's net/forwarded.ts).
   */
  tls: TlsSettings;
  /**
   * The session-ticket keys every replica shares (readTicketKeys), so that a phone resumes its TLS
   * session on any replica, after a restart too, and through a rotation; undefined: this
   * process's own random keys.
   */
  ticketKeys?: TicketKeyRing;
  log: Logger;
  /** `clientAddress` is the phone's: pairing attempts are limited per address. */
  pair(body: Record<string, unknown>, clientAddress: string | undefined): Promise<{ device_id: string; device_token: string }>;
  authenticate(token: string): Promise<AuthenticatedDevice>;
  /** `socket` is the connection's, under `ws`. */
  onConnection(ws: import('ws').WebSocket, authenticated: AuthenticatedDevice, socket: Duplex): void;
  wsUrl(): string;
  /** The dependencies that are down (none: ready), for GET /readyz. */
  unready(): Promise<string[]>;
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

function sendError(res: ServerResponse, err: unknown, log: Logger): void {
  const appError = err instanceof AppError ? err : new AppError('INTERNAL_ERROR', { cause: err });
  if (appError.code === 'INTERNAL_ERROR') log.error({ err }, 'agent endpoint failed');
  const headers: Record<string, string> =
    appError.retryAfterSeconds === undefined ? {} : { 'retry-after': String(appError.retryAfterSeconds) };
  sendJson(res, appError.httpStatus, { success: false, error: { code: appError.code, message: appError.message } }, headers);
}

async function readJson(req: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY) throw new AppError('PAYLOAD_TOO_LARGE');
    chunks.push(chunk);
  }
  try {
    const value: unknown = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    if (value && typeof value === 'object' && !Array.isArray(value)) return value as Record<string, unknown>;
  } catch {
    // answered below
  }
  throw new AppError('INVALID_JSON');
}

function rejectUpgrade(socket: Duplex, code: ErrorCode): void {
  const { http, message } = ERROR_CATALOG[code];
  const body = JSON.stringify({ success: false, error: { code, message } });
  socket.end(
    `HTTP/1.1 ${http} ${http === 401 ? 'Unauthorized' : 'Error'}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

/** The HTTPS endpoint phones talk to: pairing, then the WebSocket of PROTOCOL.md. */
export function createAgentServer(deps: AgentServerDeps): http.Server {
  const trusted = deps.tls.mode === 'proxy' ? new TrustedProxies(deps.tls.trustedProxies) : undefined;
  const origin = (req: IncomingMessage): RequestOrigin =>
    trusted
      ? requestOrigin(req.socket.remoteAddress, req.headers, trusted)
      : { ip: req.socket.remoteAddress, https: true, clientKnown: true };
  const forwardedOverHttps = (req: IncomingMessage) => origin(req).https;
  /** Undefined when a trusted proxy hid the phone's address: limits per address do not apply then. */
  const clientAddress = (req: IncomingMessage) => {
    const o = origin(req);
    return o.clientKnown ? o.ip : undefined;
  };
  const wss = new WebSocketServer({
    noServer: true,
    // A received SMS of the longest text (domain/frame-budgets.ts) is at most about 102 kB of JSON
    // (17,085 UTF-16 units escaped as \uXXXX); anything larger closes the connection (1009).
    maxPayload: 128 * 1024,
    handleProtocols: (protocols) => (protocols.has(AGENT_SUBPROTOCOL) ? AGENT_SUBPROTOCOL : false),
  });
  // A handshake ws refuses (no or a bad Sec-WebSocket-Key, Upgrade, version or subprotocol header)
  // is answered in the error envelope, like every other refusal; ws's own answer is plain text.
  wss.on('wsClientError', (_err: Error, socket: Duplex) => rejectUpgrade(socket, 'MALFORMED_REQUEST'));
  const handle = (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'https://hub');
    // Liveness: the process answers. Readiness: Postgres, Redis and NATS answer too.
    if (req.method === 'GET' && url.pathname === '/healthz') return sendJson(res, 200, { success: true });
    if (req.method === 'GET' && url.pathname === '/readyz') {
      deps.unready().then(
        (down) => {
          if (down.length === 0) return sendJson(res, 200, { success: true });
          const { http, message } = ERROR_CATALOG.SERVICE_UNAVAILABLE;
          res.setHeader('Retry-After', '5');
          sendJson(res, http, {
            success: false,
            error: { code: 'SERVICE_UNAVAILABLE', message, details: down.map((field) => ({ field, code: 'SERVICE_UNAVAILABLE' })) },
          });
        },
        (err: unknown) => sendError(res, err, deps.log),
      );
      return;
    }
    if (!forwardedOverHttps(req)) return sendError(res, new AppError('HTTPS_REQUIRED'), deps.log);
    if (url.pathname === '/v1/agent/pair') {
      if (req.method !== 'POST') return sendError(res, new AppError('METHOD_NOT_ALLOWED'), deps.log);
      readJson(req)
        .then((body) => deps.pair(body, clientAddress(req)))
        .then(
          (paired) => sendJson(res, 200, { success: true, ...paired, ws_url: deps.wsUrl(), protocol: PROTOCOL_VERSION }),
          (err: unknown) => sendError(res, err, deps.log),
        );
      return;
    }
    sendError(res, new AppError('NOT_FOUND'), deps.log);
  };
  if (deps.tls.mode === 'native' && !deps.ticketKeys) {
    deps.log.warn(
      'TLS session resumption across restarts and replicas is off (no HUB_TLS_TICKET_KEYS_FILE, or no such file): phones resume only on this process',
    );
  }
  const server =
    deps.tls.mode === 'native'
      ? https.createServer(
          {
            cert: fs.readFileSync(deps.tls.certFile),
            key: fs.readFileSync(deps.tls.keyFile),
            // No ALPN: phones speak HTTP/1.1 whatever they offer, and Node copies the server's ALPN
            // list for each TLS socket into a small pooled buffer that then keeps a whole 8 kB
            // slab alive: about 2 kB a phone once a few thousand are connected.
            ALPNProtocols: [],
            // A resumed session skips the certificate and its RSA signature, most of the hub's
            // CPU for a reconnecting phone.
            sessionTimeout: TLS_SESSION_TIMEOUT_S,
            sessionIdContext: TLS_SESSION_ID_CONTEXT,
            ...(deps.ticketKeys ? { ticketKeys: deps.ticketKeys.currentKeys } : {}),
          },
          handle,
        )
      : http.createServer(handle);
  if (deps.ticketKeys && server instanceof https.Server) deps.ticketKeys.install(server, deps.log);
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const url = new URL(req.url ?? '/', 'https://hub');
    if (!forwardedOverHttps(req)) return rejectUpgrade(socket, 'HTTPS_REQUIRED');
    const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    if (url.pathname !== '/v1/agent') return rejectUpgrade(socket, 'NOT_FOUND');
    if (!token) return rejectUpgrade(socket, 'INVALID_DEVICE_TOKEN');
    deps.authenticate(token).then(
      (authenticated) => wss.handleUpgrade(req, socket, head, (ws) => deps.onConnection(ws, authenticated, socket)),
      (err: unknown) => {
        if (!(err instanceof AppError)) deps.log.error({ err }, 'agent authentication failed');
        rejectUpgrade(socket, err instanceof AppError ? err.code : 'SERVICE_UNAVAILABLE');
      },
    );
  });
  return server;
}
