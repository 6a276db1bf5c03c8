import type WebSocket from 'ws';

/** How long an answer to the phone (`report_ack`, `received_ack`) may wait to go out with other frames. */
export const ANSWER_HOLD_MS = 1000;

const ANSWERS = new Set(['report_ack', 'received_ack']);

/** The connection's socket, under the WebSocket: frames written while it is corked go out in one write. */
export type CorkableSocket = { cork(): void; uncork(): void };

/**
 * Writes a phone's frames. An answer to a report or a received SMS is held, at most
 * `ANSWER_HOLD_MS`, and written with the next frame to the phone or with the answers of that
 * moment: frames written together cost one socket write (one TLS record), where each written on
 * its own cost its own, and the writes were the hub's largest cost per SMS. The answers of an SMS
 * (its `sent`, then its `delivered` half a second later, on a quick network) mostly go as one.
 * An agent sends a report again only after 10 s without its answer (PROTOCOL.md §3), and a lost
 * answer only makes it send the report again, which the hub stores once.
 */
export class FrameWriter {
  /** The answers held, as text, oldest first; none most of the time. */
  private held?: string[];
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly ws: WebSocket,
    private readonly socket: CorkableSocket,
    private readonly holdMs = ANSWER_HOLD_MS,
  ) {}

  /** Writes `frame` now, after the answers held; an answer goes with the next frame, or within `holdMs`. */
  send(frame: Record<string, unknown>): void {
    if (!ANSWERS.has(frame.type as string)) {
      this.write(JSON.stringify(frame));
      return;
    }
    if (this.ws.readyState !== this.ws.OPEN) return;
    (this.held ??= []).push(JSON.stringify(frame));
    // Unreferenced: a hub shutting down does not wait for it (its `reconnect` frame writes what is held).
    this.timer ??= setTimeout(() => this.write(), this.holdMs).unref();
  }

  private write(text?: string): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    const frames = this.held ?? [];
    this.held = undefined;
    if (text !== undefined) frames.push(text);
    if (frames.length === 0 || this.ws.readyState !== this.ws.OPEN) return;
    if (frames.length === 1) {
      this.ws.send(frames[0]!);
      return;
    }
    this.socket.cork();
    try {
      for (const frame of frames) this.ws.send(frame);
    } finally {
      this.socket.uncork();
    }
  }
}
