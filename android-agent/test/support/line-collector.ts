import { Writable } from 'node:stream';

/** A stream that keeps each line written to it, standing in for the agent's stdout. */
export class LineCollector extends Writable {
  readonly lines: string[] = [];
  private partial = '';

  override _write(chunk: Buffer | string, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    const text = this.partial + chunk.toString();
    const parts = text.split('\n');
    this.partial = parts.pop() ?? '';
    this.lines.push(...parts);
    callback();
  }

  /** The lines parsed as JSON. */
  json(): unknown[] {
    return this.lines.map((line) => JSON.parse(line) as unknown);
  }
}
