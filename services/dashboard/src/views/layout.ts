import { html, type SafeHtml } from './html';

export interface PageContext {
  /** Absent on the sign-in and sign-up pages. */
  user?: { email: string; clientId: string; role?: string };
  csrf?: string;
  /** The section of the navigation to mark. */
  section?: string;
  /** The sections the member's role opens (undefined: every one). */
  sections?: string[];
  mode?: 'live' | 'test';
}

const NAV: [string, string][] = [
  ['overview', '/'],
  ['messages', '/messages'],
  ['campaigns', '/campaigns'],
  ['inbox', '/inbox'],
  ['opt-outs', '/opt-outs'],
  ['statistics', '/stats'],
  ['otp', '/otp'],
  ['phones', '/phones'],
  ['keys', '/keys'],
  ['smpp', '/smpp'],
  ['webhooks', '/webhooks'],
  ['settings', '/settings'],
  ['audit', '/audit'],
  ['members', '/members'],
  ['profile', '/profile'],
];

const LABELS: Record<string, string> = {
  overview: 'Overview',
  messages: 'Messages',
  campaigns: 'Campaigns',
  inbox: 'Inbox',
  'opt-outs': 'Opt-outs',
  statistics: 'Statistics',
  otp: 'One-time passwords',
  phones: 'Phones',
  keys: 'API keys',
  smpp: 'SMPP',
  webhooks: 'Webhooks',
  settings: 'Settings',
  audit: 'Audit log',
  members: 'Members',
  profile: 'Your profile',
};

/** A hidden field with the session's CSRF token: every form that changes something has one. */
export const csrfField = (ctx: PageContext) => html`<input type="hidden" name="_csrf" value="${ctx.csrf ?? ''}">`;

export function layout(title: string, ctx: PageContext, body: SafeHtml): string {
  const nav = ctx.user
    ? html`<nav aria-label="Main">
        <ul>
          ${NAV.filter(([name]) => !ctx.sections || ctx.sections.includes(name)).map(([name, href]) => html`<li><a href="${href}" ${ctx.section === name ? html`aria-current="page"` : ''}>${LABELS[name]}</a></li>`)}
        </ul>
        <form method="post" action="/signout" class="signout">${csrfField(ctx)}<button type="submit" class="link">Sign out</button></form>
      </nav>`
    : '';
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · SMS Gateway</title>
<link rel="stylesheet" href="/static/app.css">
<script src="/static/envelope.js" defer></script>
<script src="/static/app.js" defer></script>
</head>
<body>
<header class="top">
  <a class="brand" href="/">SMS Gateway</a>
  ${ctx.user ? html`<span class="who">${ctx.user.email}${ctx.user.role ? html` (${ctx.user.role})` : ''} · <code>${ctx.user.clientId}</code></span>` : ''}
</header>
${nav}
<main id="main">
<h1>${title}</h1>
${body}
</main>
</body>
</html>`.value;
}

/** A message above the page's content: what just happened, or what went wrong, in words. */
export function notice(kind: 'ok' | 'error', text: string | undefined): SafeHtml | string {
  if (!text) return '';
  return html`<p class="notice ${kind}" role="${kind === 'error' ? 'alert' : 'status'}">${text}</p>`;
}

/** A value to copy, with a button that copies it (the script adds the behaviour; without it the value is still selectable). */
export function copyable(label: string, value: string, id: string): SafeHtml {
  return html`<div class="copy">
    <label for="${id}">${label}</label>
    <div class="copy-row"><input id="${id}" type="text" readonly value="${value}" spellcheck="false"><button type="button" data-copy="${id}">Copy</button></div>
  </div>`;
}

export const when = (iso: string | undefined) =>
  iso ? html`<time datetime="${iso}">${iso.replace('T', ' ').slice(0, 19)} UTC</time>` : html`<span class="muted">never</span>`;
