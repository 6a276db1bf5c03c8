import type WebSocket from 'ws';

/** What `ws` passes on to `tls.connect` besides its own options. */
export type ResumingClientOptions = WebSocket.ClientOptions & { session?: Buffer };

/**
 * The TLS session a hub gave, offered again when connecting to the same URL (PROTOCOL.md §2): the
 * hub resumes it without the signature of its certificate, most of its CPU for a phone that comes
 * back after a restart. TLS 1.3 gives sessions (tickets) after the handshake, and Node's server
 * none on a resumed connection: the last one given is kept until another comes.
 */
export class TlsSessionKeeper {
  private kept: { wsUrl: string; session: Buffer } | undefined;

  /** Options of a `ws` client for `wsUrl`: the session kept from that URL, and a hook that keeps the next one. */
  clientOptions(wsUrl: string): ResumingClientOptions {
    const session = this.kept?.wsUrl === wsUrl ? this.kept.session : undefined;
    return {
      // ws passes its options on to tls.connect (websocket.js, tlsConnect).
      ...(session ? { session } : {}),
      // The socket's 'session' event may come before the upgrade's answer: listen from the start.
      finishRequest: (request) => {
        request.once('socket', (socket) =>
          socket.on('session', (given: Buffer) => {
            this.kept = { wsUrl, session: given };
          }),
        );
        request.end();
      },
    };
  }
}
