import { SseParser, SseTooLongError, type ServerSentEvent } from '../src/sse';

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

  it('when a line or an event runs past the bound, then the parser stops with SseTooLongError instead of keeping it all', () => {
    const seen: ServerSentEvent[] = [];
    const endless = new SseParser((e) => seen.push(e), 100);
    expect(() => {
      for (let i = 0; i < 20; i++) endless.push('data: ' + 'x'.repeat(10));
    }).toThrow(SseTooLongError);

    const many = new SseParser((e) => seen.push(e), 100);
    expect(() => {
      for (let i = 0; i < 20; i++) many.push(`data: ${'y'.repeat(10)}\n`);
    }).toThrow(/an event of the stream is longer than 100 characters/);

    const fine = new SseParser((e) => seen.push(e), 100);
    for (let i = 0; i < 50; i++) fine.push(`data: ${'z'.repeat(50)}\n\n`);
    expect(seen).toHaveLength(50);
  });
});
