import type { Writable } from 'node:stream';
import type { ListenSink } from '../use-cases/listen.use-case';

/**
 * A listener's output as server-sent events: `ready`, then `webhook` (its id the event's), `: keepalive`
 * comments, and `closed` when the gateway ends the stream. A reader that leaves more than
 * `maxBufferedBytes` unread is cut off (`onSlowReader`): the gateway never holds more for it.
 */
export function sseSink(out: Writable, maxBufferedBytes: number, onSlowReader: () => void): ListenSink {
  const write = (text: string) => {
    if (out.destroyed || out.writableEnded) return;
    if (out.writableLength > maxBufferedBytes) {
      onSlowReader();
      out.destroy();
      return;
    }
    out.write(text);
  };
  return {
    ready: (ready) => write(`event: ready\ndata: ${JSON.stringify(ready)}\n\n`),
    webhook: (eventId, delivery) => write(`event: webhook\nid: ${eventId}\ndata: ${JSON.stringify(delivery)}\n\n`),
    keepalive: () => write(': keepalive\n\n'),
    closed: (reason) => {
      write(`event: closed\ndata: ${JSON.stringify(reason)}\n\n`);
      if (!out.destroyed && !out.writableEnded) out.end();
    },
  };
}
