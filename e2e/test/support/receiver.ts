import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { eventually } from './http';

export interface ReceivedWebhook {
  path: string;
  headers: Record<string, string | string[] | undefined>;
  /** The body exactly as it arrived. */
  raw: string;
  body: { event: string; event_id: string; timestamp: string; data: Record<string, unknown> };
  at: number;
}

/** What the receiver answers on a path: a status, or `hang` (never answers). */
export type Behaviour = number | 'hang' | ((n: number) => number | 'hang');

/**
 * A real HTTPS webhook receiver (the stack's local certificate) that records
 * every request; each path can be told what to answer.
 */
export class Receiver {
  readonly received: ReceivedWebhook[] = [];
  private readonly behaviours = new Map<string, Behaviour>();
  private readonly counts = new Map<string, number>();
  private readonly hanging = new Set<import('node:http').ServerResponse>();

  private constructor(private readonly server: https.Server) {}

  static async start(tls: { certPem: string; keyPem: string }): Promise<Receiver> {
    const server = https.createServer({ cert: tls.certPem, key: tls.keyPem, keepAlive: true });
    const receiver = new Receiver(server);
    server.on('request', (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        const path = req.url ?? '/';
        let body: ReceivedWebhook['body'];
        try {
          body = JSON.parse(raw) as ReceivedWebhook['body'];
        } catch {
          body = { event: '', event_id: '', timestamp: '', data: {} };
        }
        receiver.received.push({ path, headers: req.headers, raw, body, at: Date.now() });
        const n = (receiver.counts.get(path) ?? 0) + 1;
        receiver.counts.set(path, n);
        const b = receiver.behaviours.get(path) ?? 200;
        const answer = typeof b === 'function' ? b(n) : b;
        if (answer === 'hang') {
          receiver.hanging.add(res);
          return;
        }
        res.writeHead(answer, { 'Content-Type': 'text/plain' }).end('ok');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    return receiver;
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  url(path: string): string {
    return `https://127.0.0.1:${this.port}${path}`;
  }

  on(path: string, behaviour: Behaviour): void {
    this.behaviours.set(path, behaviour);
  }

  at(path: string): ReceivedWebhook[] {
    return this.received.filter((r) => r.path === path);
  }

  /** Waits until `path` has received at least `count` requests (matching `filter`), and returns them. */
  async waitFor(
    path: string,
    count: number,
    timeoutMs = 20_000,
    filter: (r: ReceivedWebhook) => boolean = () => true,
  ): Promise<ReceivedWebhook[]> {
    return eventually(
      async () => {
        const got = this.at(path).filter(filter);
        return got.length >= count ? got : undefined;
      },
      timeoutMs,
      `${count} webhook(s) at ${path}`,
    );
  }

  async stop(): Promise<void> {
    for (const res of this.hanging) res.destroy();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
