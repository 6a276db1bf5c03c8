import net from 'node:net';

/**
 * A TCP port that nothing listens on right now. Another process may take it
 * before the caller binds it; the launcher accepts that small race because the
 * servers it starts fail loudly on a busy port.
 */
/** Ports handed out by this process recently: the kernel may offer a just-released port again. */
const handedOut = new Set<number>();

export async function freePort(host = '127.0.0.1'): Promise<number> {
  for (;;) {
    const port = await anyFreePort(host);
    if (handedOut.has(port)) continue;
    handedOut.add(port);
    // Forgotten after a while: by then the port is bound by whom it was given to, or free again.
    setTimeout(() => handedOut.delete(port), 120_000).unref();
    return port;
  }
}

function anyFreePort(host: string): Promise<number> {
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
