import { randomBytes } from 'node:crypto';
import { EventEmitter } from 'node:events';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { WebSocket, WebSocketServer } from 'ws';
import type { TestCertificates } from './test-certs';

export interface TestHubOptions {
  certs: TestCertificates;
  /** One-time pairing codes the hub accepts. */
  pairingCodes?: string[];
  /** client_id -> device password. */
  clients?: Record<string, string>;
  /**
   * The device each pairing input belongs to: a pairing code, or `<client_id>:<device password>`.
   * Inputs not listed give `device_test`.
   */
  devices?: Record<string, string>;
  /** Answer every pairing request with 429 and this Retry-After (seconds), as a throttled hub. */
  throttleSeconds?: number;
  /** Answer every report with report_ack at once (default true). */
  autoAckReports?: boolean;
  /** Answer every `received` frame with received_ack at once (default true). */
  autoAckReceived?: boolean;
  /** `hello.protocol` (default 2, as the device-hub). */
  protocol?: number;
  /** TLS session-ticket keys (48 bytes), as HUB_TLS_TICKET_KEYS_FILE gives the device-hub; default: random ones. */
  ticketKeys?: Buffer;
}

/** A frame the hub received, with the number of the connection it came on (1 for the first). */
export interface ReceivedFrame {
  connection: number;
  deviceId: string;
  frame: Record<string, unknown>;
}

/** A connection the hub closed, and how. */
export interface ClosedConnection {
  connection: number;
  deviceId: string;
  code: number;
}

const DEVICE_ID = 'device_test';
const WAIT_TIMEOUT_MS = 5_000;

/**
 * The hub side of PROTOCOL.md, just enough for the agent tests: the pairing endpoint, the
 * WebSocket with its 401 before upgrade, hello, and report_ack.
 */
export class TestHub {
  readonly pairRequests: Record<string, unknown>[] = [];
  readonly frames: ReceivedFrame[] = [];
  /** Number of connections upgraded (each got a hello). */
  connections = 0;
  /** Number of connection attempts refused with 401. */
  refusals = 0;
  /** The device of each upgraded connection, in order (index 0 is connection 1). */
  readonly connectionDevices: string[] = [];
  /** Whether each upgraded connection resumed a TLS session, in order (index 0 is connection 1). */
  readonly resumed: boolean[] = [];
  /** Connections the hub closed because another one of the same device took over (4002). */
  readonly replaced: ClosedConnection[] = [];
  autoAckReports: boolean;
  autoAckReceived: boolean;
  private readonly pairingCodes: Set<string>;
  /** token -> device id. */
  private readonly tokens = new Map<string, string>();
  /** The open connection of each device, with its number. */
  private readonly byDevice = new Map<string, { ws: WebSocket; connection: number }>();
  private readonly changes = new EventEmitter();
  private readonly wss = new WebSocketServer({
    noServer: true,
    handleProtocols: (protocols) => (protocols.has('smsgw.agent.v1') ? 'smsgw.agent.v1' : false),
  });
  private current: WebSocket | undefined;

  private constructor(
    private readonly server: https.Server,
    private readonly options: TestHubOptions,
  ) {
    this.pairingCodes = new Set(options.pairingCodes ?? []);
    this.autoAckReports = options.autoAckReports ?? true;
    this.autoAckReceived = options.autoAckReceived ?? true;
    this.changes.setMaxListeners(100);
  }

  static async start(options: TestHubOptions): Promise<TestHub> {
    const server = https.createServer({
      key: options.certs.keyPem,
      cert: options.certs.certPem,
      ...(options.ticketKeys ? { ticketKeys: options.ticketKeys } : {}),
    });
    const hub = new TestHub(server, options);
    server.on('request', (req, res) => hub.onRequest(req, res));
    server.on('upgrade', (req, socket, head) => hub.onUpgrade(req, socket, head));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return hub;
  }

  get url(): string {
    return `https://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** Frames of one type, in the order received. */
  received(type: string): ReceivedFrame[] {
    return this.frames.filter((received) => received.frame.type === type);
  }

  /** Offers an SMS to the latest connection, or to the connection of `deviceId`. */
  offer(sms: { message_id: string; to: string; text: string; expires_at?: string; sim?: number }, attempt = 1, deviceId?: string): void {
    this.send({ type: 'sms', ...sms, priority: 'normal', attempt }, deviceId);
  }

  ackReport(messageId: string, status: string): void {
    this.send({ type: 'report_ack', message_id: messageId, status });
  }

  ackReceived(receivedId: string): void {
    this.send({ type: 'received_ack', received_id: receivedId });
  }

  send(frame: Record<string, unknown>, deviceId?: string): void {
    const ws = deviceId === undefined ? this.current : this.byDevice.get(deviceId)?.ws;
    if (!ws || ws.readyState !== WebSocket.OPEN) throw new Error(`no agent connected${deviceId ? ` for ${deviceId}` : ''}`);
    ws.send(JSON.stringify(frame));
  }

  /** Cuts the connection without a close frame, as a network failure would. */
  dropConnection(): void {
    this.current?.terminate();
  }

  closeConnection(code: number, reason: string): void {
    this.current?.close(code, reason);
  }

  /** Resolves once `deviceId` has an open connection. */
  waitForDevice(deviceId: string): Promise<number> {
    return this.until(`a connection of ${deviceId}`, () => this.byDevice.get(deviceId)?.connection);
  }

  /** Every token issued so far is refused from now on. */
  revokeTokens(): void {
    this.tokens.clear();
  }

  /** Resolves with the first received frame matching `predicate`, waiting for it if needed. */
  waitForFrame(description: string, predicate: (received: ReceivedFrame) => boolean): Promise<ReceivedFrame> {
    return this.until(description, () => this.frames.find(predicate));
  }

  /** Resolves once `count` frames match `predicate`. */
  waitForFrames(description: string, count: number, predicate: (received: ReceivedFrame) => boolean): Promise<ReceivedFrame[]> {
    return this.until(description, () => {
      const matching = this.frames.filter(predicate);
      return matching.length >= count ? matching : undefined;
    });
  }

  waitForConnections(count: number): Promise<number> {
    return this.until(`${count} connection(s)`, () => (this.connections >= count ? this.connections : undefined));
  }

  waitForRefusals(count: number): Promise<number> {
    return this.until(`${count} refusal(s)`, () => (this.refusals >= count ? this.refusals : undefined));
  }

  /** Resolves when `check` gives a value; re-checked on every change of the hub's state. */
  until<T>(description: string, check: () => T | undefined): Promise<T> {
    return new Promise((resolve, reject) => {
      const evaluate = (): void => {
        const value = check();
        if (value === undefined) return;
        clearTimeout(timer);
        this.changes.off('change', evaluate);
        resolve(value);
      };
      const timer = setTimeout(() => {
        this.changes.off('change', evaluate);
        reject(new Error(`timed out waiting for ${description}; frames: ${JSON.stringify(this.frames)}`));
      }, WAIT_TIMEOUT_MS);
      this.changes.on('change', evaluate);
      evaluate();
    });
  }

  async close(): Promise<void> {
    for (const client of this.wss.clients) client.terminate();
    await new Promise<void>((resolve) => this.wss.close(() => resolve()));
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private onRequest(req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse): void {
    if (req.method !== 'POST' || req.url !== '/v1/agent/pair') {
      res.writeHead(404).end();
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
      this.pairRequests.push(body);
      this.changes.emit('change');
      if (this.options.throttleSeconds !== undefined) {
        res.writeHead(429, { 'content-type': 'application/json', 'retry-after': String(this.options.throttleSeconds) });
        res.end(JSON.stringify({ success: false, error: { code: 'RATE_LIMIT_EXCEEDED', message: "Trop de tentatives d'appairage" } }));
        return;
      }
      const byCode = typeof body.pairing_code === 'string' && this.pairingCodes.delete(body.pairing_code);
      const byPassword =
        typeof body.client_id === 'string' &&
        this.options.clients?.[body.client_id] !== undefined &&
        this.options.clients[body.client_id] === body.device_password;
      if (!byCode && !byPassword) {
        res.writeHead(401, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ success: false, error: { code: 'INVALID_PAIRING', message: 'unknown, used or expired pairing' } }));
        return;
      }
      const input = byCode ? String(body.pairing_code) : `${String(body.client_id)}:${String(body.device_password)}`;
      const deviceId = this.options.devices?.[input] ?? DEVICE_ID;
      const token = `dtk_${randomBytes(16).toString('hex')}`;
      this.tokens.set(token, deviceId);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          success: true,
          device_id: deviceId,
          device_token: token,
          ws_url: `wss://127.0.0.1:${(this.server.address() as AddressInfo).port}/v1/agent`,
          protocol: 1,
        }),
      );
    });
  }

  private onUpgrade(req: import('node:http').IncomingMessage, socket: import('node:stream').Duplex, head: Buffer): void {
    const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    if (req.url !== '/v1/agent' || !token || !this.tokens.has(token)) {
      this.refusals += 1;
      socket.end('HTTP/1.1 401 Unauthorized\r\nContent-Length: 0\r\nConnection: close\r\n\r\n');
      this.changes.emit('change');
      return;
    }
    const deviceId = this.tokens.get(token)!;
    const resumed = (socket as TLSSocket).isSessionReused();
    this.wss.handleUpgrade(req, socket, head, (ws) => {
      this.resumed.push(resumed);
      this.onConnection(ws, deviceId);
    });
  }

  private onConnection(ws: WebSocket, deviceId: string): void {
    this.connections += 1;
    const connection = this.connections;
    this.connectionDevices.push(deviceId);
    // As the real hub: a second connection of the same device takes over.
    const older = this.byDevice.get(deviceId);
    if (older && older.ws.readyState === WebSocket.OPEN) {
      this.replaced.push({ connection: older.connection, deviceId, code: 4002 });
      older.ws.close(4002, 'replaced');
    }
    this.byDevice.set(deviceId, { ws, connection });
    ws.on('close', () => {
      if (this.byDevice.get(deviceId)?.ws === ws) this.byDevice.delete(deviceId);
      this.changes.emit('change');
    });
    this.current = ws;
    ws.on('message', (data: Buffer) => {
      const frame = JSON.parse(data.toString('utf8')) as Record<string, unknown>;
      this.frames.push({ connection, deviceId, frame });
      if (frame.type === 'report' && this.autoAckReports && ws.readyState === WebSocket.OPEN) {
        ws.send(JSON.stringify({ type: 'report_ack', message_id: frame.message_id, status: frame.status }));
      }
      if (frame.type === 'received' && this.autoAckReceived && ws.readyState === WebSocket.OPEN) {
        ws.send(JSON.stringify({ type: 'received_ack', received_id: frame.received_id }));
      }
      this.changes.emit('change');
    });
    ws.send(JSON.stringify({ type: 'hello', protocol: this.options.protocol ?? 2, device_id: deviceId, ping_interval_ms: 25_000 }));
    this.changes.emit('change');
  }
}
