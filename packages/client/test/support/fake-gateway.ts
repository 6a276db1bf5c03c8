import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';

export interface Recorded {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: http.IncomingHttpHeaders;
  body: unknown;
}

/** What the fake answers to one request: a status, headers and a JSON body, or `reset`, or `hang`. */
export type Reply = { status: number; body?: unknown; headers?: Record<string, string> } | 'reset' | 'hang';

/**
 * A stand-in for the gateway on port 0 that records every request and answers from a script:
 * `replies` are used in order, then `fallback` for every later request.
 */
export class FakeGateway {
  readonly requests: Recorded[] = [];
  private readonly replies: (Reply | ((r: Recorded) => Reply))[] = [];
  private readonly hanging = new Set<http.ServerResponse>();
  fallback: Reply | ((r: Recorded) => Reply) = { status: 200, body: { success: true } };

  private constructor(private readonly server: http.Server | https.Server) {
    server.on('request', (req: http.IncomingMessage, res: http.ServerResponse) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const url = new URL(req.url ?? '/', 'http://fake');
        const raw = Buffer.concat(chunks).toString('utf8');
        const recorded: Recorded = {
          method: req.method ?? '',
          path: url.pathname,
          query: url.searchParams,
          headers: req.headers,
          body: raw ? JSON.parse(raw) : undefined,
        };
        this.requests.push(recorded);
        const next = this.replies.shift() ?? this.fallback;
        const reply = typeof next === 'function' ? next(recorded) : next;
        if (reply === 'reset') return req.socket.destroy();
        if (reply === 'hang') return void this.hanging.add(res);
        res.writeHead(reply.status, {
          'content-type': 'application/json',
          'x-request-id': `req-${this.requests.length}`,
          ...reply.headers,
        });
        res.end(reply.body === undefined ? '' : typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body));
      });
    });
  }

  static async start(tls?: { cert: string; key: string }): Promise<FakeGateway> {
    const server = tls ? https.createServer(tls) : http.createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return new FakeGateway(server);
  }

  get url(): string {
    const scheme = this.server instanceof https.Server ? 'https' : 'http';
    return `${scheme}://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  reply(...replies: (Reply | ((r: Recorded) => Reply))[]): this {
    this.replies.push(...replies);
    return this;
  }

  async stop(): Promise<void> {
    for (const res of this.hanging) res.destroy();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

export const envelope = (code: string, message = 'refusé', details?: unknown[]) => ({
  success: false,
  error: { code, message, ...(details ? { details } : {}) },
});
