import type { Socket } from 'node:net';
import WebSocket, { WebSocketServer } from 'ws';
import { FrameWriter } from '../src/sessions/frame-writer';

/** A phone's frames over a real WebSocket: answers held a little, then written with other frames in one socket write. */

const HOLD_MS = 300;

async function connection(): Promise<{
  writer: FrameWriter;
  received: { frame: Record<string, unknown>; at: number }[];
  writes: () => number;
  close: () => Promise<void>;
}> {
  const server = new WebSocketServer({ port: 0, host: '127.0.0.1' });
  await new Promise((resolve) => server.once('listening', resolve));
  const accepted = new Promise<{ ws: WebSocket; socket: Socket }>((resolve) =>
    server.once('connection', (ws, req) => resolve({ ws, socket: req.socket })),
  );
  const client = new WebSocket(`ws://127.0.0.1:${(server.address() as { port: number }).port}`);
  const received: { frame: Record<string, unknown>; at: number }[] = [];
  client.on('message', (data: Buffer) => received.push({ frame: JSON.parse(data.toString('utf8')), at: Date.now() }));
  await new Promise((resolve) => client.once('open', resolve));
  const { ws, socket } = await accepted;
  // Every write the socket makes, whether of one chunk or of many gathered (a corked socket's).
  let writes = 0;
  const internals = socket as unknown as { _write: (...a: unknown[]) => void; _writev: (...a: unknown[]) => void };
  const [write, writev] = [internals._write.bind(socket), internals._writev.bind(socket)];
  internals._write = (...a) => (writes++, write(...a));
  internals._writev = (...a) => (writes++, writev(...a));
  return {
    writer: new FrameWriter(ws, socket, HOLD_MS),
    received,
    writes: () => writes,
    close: async () => {
      client.close();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

const waitFor = async (check: () => boolean, ms = 3000) => {
  const until = Date.now() + ms;
  while (!check()) {
    if (Date.now() > until) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
};

describe('FrameWriter', () => {
  it('when an SMS follows two answers, then all three arrive at once, answers first, in one socket write', async () => {
    const c = await connection();
    try {
      c.writer.send({ type: 'report_ack', message_id: 'msg_1', status: 'sent' });
      c.writer.send({ type: 'report_ack', message_id: 'msg_1', status: 'delivered' });
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(c.received).toEqual([]);
      const before = c.writes();
      c.writer.send({ type: 'sms', message_id: 'msg_2' });
      await waitFor(() => c.received.length === 3);
      expect(c.received.map((r) => [r.frame.type, r.frame.status ?? null])).toEqual([
        ['report_ack', 'sent'],
        ['report_ack', 'delivered'],
        ['sms', null],
      ]);
      expect(c.writes() - before).toBe(1);
    } finally {
      await c.close();
    }
  });

  it('when nothing else goes, then the answers of the moment go together once the hold ends', async () => {
    const c = await connection();
    try {
      const start = Date.now();
      const before = c.writes();
      c.writer.send({ type: 'report_ack', message_id: 'msg_1', status: 'sent' });
      c.writer.send({ type: 'received_ack', received_id: 'rcv_1' });
      await waitFor(() => c.received.length === 2);
      expect(c.received.map((r) => r.frame.type)).toEqual(['report_ack', 'received_ack']);
      expect(c.received[0]!.at - start).toBeGreaterThanOrEqual(HOLD_MS - 20);
      expect(c.writes() - before).toBe(1);
    } finally {
      await c.close();
    }
  });

  it('when a frame is not an answer, then it goes at once', async () => {
    const c = await connection();
    try {
      const start = Date.now();
      c.writer.send({ type: 'reconnect', after_ms: 1000 });
      await waitFor(() => c.received.length === 1);
      expect(c.received[0]!.at - start).toBeLessThan(HOLD_MS);
    } finally {
      await c.close();
    }
  });
});
