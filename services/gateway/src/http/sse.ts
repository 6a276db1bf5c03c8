import type { Writable } from 'node:stream';
import type { ListenSink } from '../use-cases/listen.use-case';

/** A listener's output as server-sent events: `ready`, then `webhook` (its id the event's), and `: keepalive` comments. */
export function sseSink(out: Writable): ListenSink {
  const write = (text: string) => {
    if (!out.destroyed && !out.writableEnded) out.write(text);
  };
  return {
    ready: (ready) => write(`event: ready\ndata: ${JSON.stringify(ready)}\n\n`),
    webhook: (eventId, delivery) => write(`event: webhook\nid: ${eventId}\ndata: ${JSON.stringify(delivery)}\n\n`),
    keepalive: () => write(': keepalive\n\n'),
  };
}
