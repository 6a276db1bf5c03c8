import { EventEmitter } from 'node:events';

/**
 * Stands in for the `ws` module's WebSocket in unit tests of the protocol core (jest.mock('ws')):
 * each socket the agent opens is listed in `sockets`, and the test plays the hub on it.
 */
export default class FakeWebSocket extends EventEmitter {
  static readonly CONNECTING = 0;
  static readonly OPEN = 1;
  static readonly CLOSING = 2;
  static readonly CLOSED = 3;
  static readonly sockets: FakeWebSocket[] = [];

  readyState = FakeWebSocket.CONNECTING;
  /** What the agent sent, parsed. */
  readonly sent: { type: string; [key: string]: unknown }[] = [];

  constructor(readonly url: string) {
    super();
    FakeWebSocket.sockets.push(this);
  }

  static last(): FakeWebSocket | undefined {
    return FakeWebSocket.sockets[FakeWebSocket.sockets.length - 1];
  }

  /** The hub accepted the upgrade. */
  open(): void {
    this.readyState = FakeWebSocket.OPEN;
    this.emit('open');
  }

  /** A text frame from the hub. */
  hear(frame: unknown): void {
    this.emit('message', Buffer.from(JSON.stringify(frame), 'utf8'), false);
  }

  /** The connection ends without a close frame (1006), as when the network drops. */
  drop(): void {
    this.end(1006);
  }

  send(text: string): void {
    if (this.readyState === FakeWebSocket.OPEN) this.sent.push(JSON.parse(text) as { type: string });
  }

  /** The agent's close handshake: the hub answers at once. */
  close(code = 1000): void {
    if (this.readyState === FakeWebSocket.CLOSED) return;
    this.readyState = FakeWebSocket.CLOSING;
    setImmediate(() => this.end(code));
  }

  terminate(): void {
    this.end(1006);
  }

  private end(code: number): void {
    if (this.readyState === FakeWebSocket.CLOSED) return;
    this.readyState = FakeWebSocket.CLOSED;
    this.emit('close', code, Buffer.from(''));
  }
}
