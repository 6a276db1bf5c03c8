/** A plain-text table: a header row, then rows, columns padded to their widest cell. */
export function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => [...(r[i] ?? '')].length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c + ' '.repeat(widths[i]! - [...c].length)))
      .join('  ')
      .trimEnd();
  return [line(header), ...rows.map(line)].join('\n');
}

/** At most `max` characters, an ellipsis marking the cut; line breaks shown as spaces. */
export function truncate(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ');
  const chars = [...flat];
  return chars.length <= max ? flat : `${chars.slice(0, max - 1).join('')}…`;
}

/** `key: value` lines for an answer's fields, nested objects as JSON. */
export function fields(answer: object, order?: string[]): string {
  const values = answer as Record<string, unknown>;
  const keys = order ? order.filter((k) => values[k] !== undefined && values[k] !== null) : Object.keys(values);
  const width = Math.max(...keys.map((k) => k.length));
  return keys
    .filter((k) => k !== 'success')
    .map((k) => {
      const v = values[k];
      return `${`${k}:`.padEnd(width + 1)} ${typeof v === 'string' ? v : JSON.stringify(v)}`;
    })
    .join('\n');
}

export interface Writable {
  write(text: string): unknown;
  isTTY?: boolean;
  columns?: number;
}

/**
 * Progress of a long command on stderr: on a terminal a bar redrawn in place; otherwise (a pipe,
 * a CI log) one line per step, so that logs stay readable.
 */
export class Progress {
  private drawn = false;

  constructor(
    private readonly out: Writable,
    private readonly total: number,
    private readonly unit: string,
  ) {}

  update(done: number, note: string): void {
    if (!this.out.isTTY) {
      this.out.write(`${note}: ${done}/${this.total} ${this.unit}\n`);
      return;
    }
    const width = Math.max(10, Math.min(40, (this.out.columns ?? 80) - 40));
    const filled = this.total === 0 ? width : Math.round((done / this.total) * width);
    const bar = `${'█'.repeat(filled)}${'░'.repeat(width - filled)}`;
    this.out.write(`\r\x1b[2K[${bar}] ${done}/${this.total} ${this.unit}`);
    this.drawn = true;
  }

  end(): void {
    if (this.drawn) this.out.write('\n');
  }
}
