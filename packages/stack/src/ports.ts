import net from 'node:net';

/**
 * A TCP port that nothing listens on right now. Another process may take it
 * before the caller binds it; the launcher accepts that small race because the
 * servers it starts fail loudly on a busy port.
 */
export function freePort(host = '127.0.0.1'): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.once('error', reject);
    server.listen({ port: 0, host, exclusive: true }, () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}
