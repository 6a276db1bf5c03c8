import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import { createServer, filters, type Server, type Session } from 'smpp';
import type { Logger } from '@smsgw/platform';
import { SmppSession, type SessionDeps } from './session';

// The library turns schedule_delivery_time and validity_period into Dates with the local time zone
// for relative times; this service reads the 16 characters itself (domain/smpp-time.ts), so that
// the rules are its own and tested. The process holds no SMPP client, which would want them encoded.
filters.time.decode = (value: unknown) => value;

export interface SmppListeners {
  tlsPort: number;
  plainPort?: number;
  sessions: ReadonlySet<SmppSession>;
  /** Stops accepting connections, asks every bound client to unbind, then closes them. */
  stop(): Promise<void>;
}

function listen(server: Server, host: string, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

/**
 * The SMPP listeners: over TLS always (the service's certificate), over plain TCP when the operator
 * opens it (a private network). Past `maxSessions` connections, new ones are closed at once.
 */
export async function startSmppListeners(
  options: { host: string; tlsPort: number; plainPort?: number; certFile: string; keyFile: string; maxSessions: number },
  deps: SessionDeps,
  log: Logger,
): Promise<SmppListeners> {
  const sessions = new Set<SmppSession>();
  const accept = (session: Session) => {
    if (sessions.size >= options.maxSessions) {
      log.warn({ max: options.maxSessions }, 'SMPP connection refused: too many sessions');
      session.destroy();
      return;
    }
    const s = new SmppSession(session, deps);
    sessions.add(s);
    session.on('close', () => sessions.delete(s));
  };
  const tls = createServer(
    { key: fs.readFileSync(options.keyFile), cert: fs.readFileSync(options.certFile), minVersion: 'TLSv1.2' },
    accept,
  );
  const plain = options.plainPort === undefined ? undefined : createServer({}, accept);
  const tlsPort = await listen(tls, options.host, options.tlsPort);
  const plainPort = plain ? await listen(plain, options.host, options.plainPort!) : undefined;
  log.info({ tls_port: tlsPort, plain_port: plainPort }, 'SMPP listening');
  return {
    tlsPort,
    plainPort,
    sessions,
    async stop() {
      const closed = Promise.all([tls, ...(plain ? [plain] : [])].map((s) => new Promise<void>((r) => s.close(() => r()))));
      await Promise.all([...sessions].map((s) => s.unbind()));
      await closed;
    },
  };
}
