import { html, type SafeHtml } from './html';
import { notice } from './layout';

/** A page that only says what went wrong, with the way back when asked. */
export function problemView(text: string, backLink = false): SafeHtml {
  return html`${notice('error', text)}${backLink ? html`<p><a href="/">Back to the overview</a></p>` : ''}`;
}
