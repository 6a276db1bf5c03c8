import type { IncomingHttpHeaders } from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import type { Certs } from '@smsgw/stack';
import { eventually } from '@smsgw/testing';

export interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  raw: string;
  at: number;
}

/** A real HTTPS receiver on 127.0.0.1 (the stack's local CA) that records each request and answers each path as told. */
export class Receiver {
  readonly received: Received[] = [];
  private readonly answers = new Map<string, (n: number) => number>();

  private constructor(private readonly server: https.Server) {}

  static async start(certs: Certs): Promise<Receiver> {
    const server = https.createServer({ cert: certs.certPem, key: certs.keyPem });
    const receiver = new Receiver(server);
    server.on('request', (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const at = req.url ?? '/';
        receiver.received.push({ path: at, headers: req.headers, raw: Buffer.concat(chunks).toString('utf8'), at: Date.now() });
        const status = (receiver.answers.get(at) ?? (() => 200))(receiver.at(at).length);
        res.writeHead(status, { 'Content-Type': 'text/plain' }).end(status < 300 ? 'ok' : 'no');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return receiver;
  }

  url(at: string): string {
    return `https://127.0.0.1:${(this.server.address() as AddressInfo).port}${at}`;
  }

  /** `answer(n)` is the status of the n-th request to `at` (from 1). */
  on(at: string, answer: (n: number) => number): void {
    this.answers.set(at, answer);
  }

  at(at: string): Received[] {
    return this.received.filter((r) => r.path === at);
  }

  waitFor(at: string, count: number, timeoutMs = 15_000): Promise<Received[]> {
    return eventually(async () => this.at(at).length >= count && this.at(at), timeoutMs, `${count} request(s) at ${at}`);
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
