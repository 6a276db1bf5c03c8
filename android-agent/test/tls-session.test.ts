import { randomBytes } from 'node:crypto';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import WebSocket, { WebSocketServer } from 'ws';
import { TlsSessionKeeper } from '../src/tls-session';
import { createTestCertificates, type TestCertificates } from './support/test-certs';

/** A WebSocket server over TLS that records, for each connection, whether its TLS session was resumed. */
async function startServer(certs: TestCertificates, ticketKeys: Buffer) {
  const server = https.createServer({ key: certs.keyPem, cert: certs.certPem, ticketKeys });
  const resumed: boolean[] = [];
  const wss = new WebSocketServer({ server });
  wss.on('connection', (ws, req) => {
    resumed.push((req.socket as TLSSocket).isSessionReused());
    ws.close(1000, 'bye');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `wss://127.0.0.1:${(server.address() as AddressInfo).port}/v1/agent`,
    resumed,
    async close() {
      for (const client of wss.clients) client.terminate();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** One connection with the keeper's options; resolves once the server closed it. */
function connectOnce(url: string, ca: string, keeper: TlsSessionKeeper): Promise<void> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { ca, ...keeper.clientOptions(url) });
    ws.once('error', reject);
    ws.once('close', () => resolve());
  });
}

describe('the TLS session kept between connections', () => {
  let certs: TestCertificates;

  beforeAll(() => {
    certs = createTestCertificates();
  });

  it('when the agent connects again to the same URL, then it offers its session; to another URL, never, even one that could resume it', async () => {
    // Both servers share their ticket keys, as the replicas of one hub do: only the URL tells them apart.
    const keys = randomBytes(48);
    const first = await startServer(certs, keys);
    const second = await startServer(certs, keys);
    try {
      const keeper = new TlsSessionKeeper();
      await connectOnce(first.url, certs.caPem, keeper);
      await connectOnce(first.url, certs.caPem, keeper);
      expect(first.resumed).toEqual([false, true]);

      await connectOnce(second.url, certs.caPem, keeper);
      expect(second.resumed).toEqual([false]);
      // The keeper now holds the second URL's session, and offers it there only.
      await connectOnce(second.url, certs.caPem, keeper);
      expect(second.resumed).toEqual([false, true]);
      await connectOnce(first.url, certs.caPem, keeper);
      expect(first.resumed).toEqual([false, true, false]);
    } finally {
      await first.close();
      await second.close();
    }
  });
});
