/** HTML that is already safe (built by `html`), as opposed to text to escape. */
export class SafeHtml {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** The one escaping of the dashboard: text made safe inside an element or a quoted attribute. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c]!);
}

type Part = SafeHtml | string | number | boolean | null | undefined | Part[];

function render(part: Part): string {
  if (part === null || part === undefined || part === false) return '';
  if (Array.isArray(part)) return part.map(render).join('');
  if (part instanceof SafeHtml) return part.value;
  return escapeHtml(String(part));
}

/** A template whose interpolations are escaped unless they are `SafeHtml` (nested `html`); arrays are joined. */
export function html(strings: TemplateStringsArray, ...parts: Part[]): SafeHtml {
  let out = strings[0]!;
  parts.forEach((p, i) => (out += render(p) + strings[i + 1]!));
  return new SafeHtml(out);
}

/** Trusted markup made elsewhere (an SVG the server drew). */
export const trusted = (markup: string) => new SafeHtml(markup);
