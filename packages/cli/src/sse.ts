/** One server-sent event (a comment, such as `: keepalive`, is not one). */
export interface ServerSentEvent {
  event: string;
  data: string;
  id?: string;
}

/** The longest line or event read (characters): the gateway's events are a few kilobytes. */
export const MAX_EVENT_CHARS = 1024 * 1024;

/** A stream whose line or event is longer than MAX_EVENT_CHARS: it is not read further. */
export class SseTooLongError extends Error {
  override readonly name = 'SseTooLongError';
}

/**
 * Reads a `text/event-stream` chunk by chunk (the HTML standard's parsing, less `retry`): fields
 * `event`, `data` (lines joined with \n) and `id`; a blank line ends an event. A line, or an
 * event's data, over `maxChars` throws SseTooLongError: a stream that never ends its line cannot
 * fill the memory.
 */
export class SseParser {
  private buffer = '';
  private event = '';
  private data: string[] = [];
  private dataChars = 0;
  private id: string | undefined;

  constructor(
    private readonly onEvent: (e: ServerSentEvent) => void,
    private readonly maxChars = MAX_EVENT_CHARS,
  ) {}

  push(chunk: string): void {
    this.buffer += chunk;
    let end: number;
    while ((end = this.buffer.search(/\r\n|\r|\n/)) >= 0) {
      const line = this.buffer.slice(0, end);
      // A lone \r at the very end may be the first half of \r\n: wait for the next chunk.
      if (this.buffer[end] === '\r' && end === this.buffer.length - 1) break;
      this.buffer = this.buffer.slice(end + (this.buffer.startsWith('\r\n', end) ? 2 : 1));
      this.line(line);
    }
    if (this.buffer.length > this.maxChars) throw new SseTooLongError(`a line of the stream is longer than ${this.maxChars} characters`);
  }

  private line(line: string): void {
    if (line.length > this.maxChars) throw new SseTooLongError(`a line of the stream is longer than ${this.maxChars} characters`);
    if (line === '') {
      if (this.data.length > 0)
        this.onEvent({ event: this.event || 'message', data: this.data.join('\n'), ...(this.id ? { id: this.id } : {}) });
      this.event = '';
      this.data = [];
      this.dataChars = 0;
      return;
    }
    if (line.startsWith(':')) return;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (field === 'event') this.event = value;
    else if (field === 'data') {
      this.dataChars += value.length + 1;
      if (this.dataChars > this.maxChars) throw new SseTooLongError(`an event of the stream is longer than ${this.maxChars} characters`);
      this.data.push(value);
    } else if (field === 'id') this.id = value;
  }
}
