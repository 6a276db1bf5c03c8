import type { IncomingMessage, ServerResponse } from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import type { KeyAndCert } from './test-certificates';

export interface Received {
  method?: string;
  url?: string;
  headers: IncomingMessage['headers'];
  body: string;
}

export interface Receiver {
  port: number;
  /** Every request, body read to its end, in arrival order. */
  received: Received[];
  /** How many TCP connections came in, TLS or not. */
  connections(): number;
  close(): Promise<void>;
}

/** A real HTTPS server on a loopback address; `answer` gets each request once its body is read. */
export async function httpsReceiver(
  tls: KeyAndCert,
  answer: (req: IncomingMessage, res: ServerResponse) => void,
  listen: { host?: string; port?: number } = {},
): Promise<Receiver> {
  const received: Received[] = [];
  let connections = 0;
  const server = https.createServer(tls, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ method: req.method, url: req.url, headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      answer(req, res);
    });
  });
  server.on('connection', () => connections++);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(listen.port ?? 0, listen.host ?? '127.0.0.1', () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    received,
    connections: () => connections,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
