import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';

/** One send the proxy saw: what the client sent and what the gateway answered it. */
export interface ProxiedSend {
  clientId: string;
  idempotencyKey: string | undefined;
  /** The gateway's status for this attempt. */
  upstreamStatus: number;
  /** The gateway's Idempotent-Replayed header. */
  replayed: boolean;
  upstreamBody: Record<string, unknown>;
  /** What the client got: the gateway's status, or 503 when the proxy lost the answer. */
  answered: number;
}

/**
 * An HTTPS proxy in front of the gateway that loses answers: the first POST /v1/sms/send of each
 * Idempotency-Key goes to the real gateway (so the message is stored), but the client is answered
 * 503 SERVICE_UNAVAILABLE, as when a gateway's answer is lost after the send left it. Every
 * later attempt, and every other request, is forwarded as it is.
 */
export class FaultProxy {
  readonly sends: ProxiedSend[] = [];
  private readonly seenKeys = new Set<string>();

  private constructor(private readonly server: https.Server) {}

  static async start(gatewayUrl: string, tls: { certPem: string; keyPem: string; caPem: string }): Promise<FaultProxy> {
    const upstream = new URL(gatewayUrl);
    const server = https.createServer({ cert: tls.certPem, key: tls.keyPem });
    const proxy = new FaultProxy(server);
    server.on('request', (req: http.IncomingMessage, res: http.ServerResponse) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks);
        const headers = { ...req.headers, host: upstream.host };
        const forward = https.request(
          { hostname: upstream.hostname, port: upstream.port, path: req.url, method: req.method, headers, ca: tls.caPem, agent: false },
          (up) => {
            const answer: Buffer[] = [];
            up.on('data', (c: Buffer) => answer.push(c));
            up.on('end', () => {
              const raw = Buffer.concat(answer);
              const key = req.headers['idempotency-key'] as string | undefined;
              const isSend = req.method === 'POST' && req.url === '/v1/sms/send';
              const lose = isSend && key !== undefined && !proxy.seenKeys.has(key);
              if (isSend) {
                if (key) proxy.seenKeys.add(key);
                let parsed: Record<string, unknown> = {};
                try {
                  parsed = JSON.parse(raw.toString('utf8')) as Record<string, unknown>;
                } catch {
                  // not JSON: recorded as empty
                }
                proxy.sends.push({
                  clientId: String(req.headers['x-client-id']),
                  idempotencyKey: key,
                  upstreamStatus: up.statusCode ?? 0,
                  replayed: up.headers['idempotent-replayed'] === 'true',
                  upstreamBody: parsed,
                  answered: lose ? 503 : (up.statusCode ?? 0),
                });
              }
              if (lose) {
                res
                  .writeHead(503, {
                    'content-type': 'application/json',
                    'retry-after': '1',
                    'x-request-id': String(up.headers['x-request-id'] ?? 'proxy'),
                  })
                  .end(
                    JSON.stringify({
                      success: false,
                      error: {
                        code: 'SERVICE_UNAVAILABLE',
                        message: "Réponse perdue par le proxy de test : l'envoi a peut-être été enregistré.",
                      },
                    }),
                  );
                return;
              }
              res.writeHead(up.statusCode ?? 502, up.headers).end(raw);
            });
          },
        );
        forward.on('error', (err) => res.writeHead(502, { 'content-type': 'text/plain' }).end(`proxy: ${err.message}`));
        forward.end(body);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return proxy;
  }

  get url(): string {
    return `https://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  sendsOf(clientId: string): ProxiedSend[] {
    return this.sends.filter((s) => s.clientId === clientId);
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
