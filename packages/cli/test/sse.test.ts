import { SseParser, type ServerSentEvent } from '../src/sse';

describe('reading server-sent events', () => {
  it('when a stream comes in odd chunks with comments and CRLF, then each event comes whole, in order', () => {
    const seen: ServerSentEvent[] = [];
    const parser = new SseParser((e) => seen.push(e));
    const stream =
      'event: ready\ndata: {"a":1}\n\n: keepalive\n\nevent: webhook\r\nid: evt_1\r\ndata: line 1\r\ndata: line 2\r\n\r\ndata: plain\n\n';
    for (let i = 0; i < stream.length; i += 3) parser.push(stream.slice(i, i + 3));

    expect(seen).toEqual([
      { event: 'ready', data: '{"a":1}' },
      { event: 'webhook', id: 'evt_1', data: 'line 1\nline 2' },
      { event: 'message', id: 'evt_1', data: 'plain' },
    ]);
  });
});
