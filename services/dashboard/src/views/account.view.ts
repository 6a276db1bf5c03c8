import { KEY_SCOPES, modeFromProto, type Destinations, type KeyScope } from '@smsgw/platform';
import type { account } from '@smsgw/proto';
import type { FleetSettings } from '../use-cases/fleet.use-case';
import type { KeyView } from '../use-cases/keys.use-case';
import { destinationsSection, type DestinationsTyped } from './destinations.view';
import { fleetSection, type FleetTyped } from './fleet.view';
import { html, type SafeHtml } from './html';
import { copyable, csrfField, notice, when, type PageContext } from './layout';

/** The sign-in or sign-up form; `next` is the local path to follow after sign-in, already checked. */
export function credentialsForm(
  pc: PageContext,
  kind: 'signin' | 'signup',
  options: { next: string; ok?: string; error?: string; email?: string },
): SafeHtml {
  const signup = kind === 'signup';
  const { next, ok, error, email = '' } = options;
  return html`${notice('ok', ok)}${notice('error', error)}
<form method="post" action="/${kind}${signup ? '' : `?next=${encodeURIComponent(next)}`}" class="card narrow">
  ${csrfField(pc)}
  <label for="email">E-mail</label>
  <input id="email" name="email" type="email" autocomplete="email" required maxlength="254" value="${email}">
  ${signup ? html`<label for="name">Company or project name</label><input id="name" name="name" type="text" autocomplete="organization" maxlength="100">` : ''}
  <label for="password">Password${signup ? ' (10 characters or more)' : ''}</label>
  <input id="password" name="password" type="password" autocomplete="${signup ? 'new-password' : 'current-password'}" required minlength="${signup ? 10 : 1}" maxlength="200">
  <button type="submit">${signup ? 'Create my account' : 'Sign in'}</button>
</form>
<p>${signup ? html`Already have an account? <a href="/signin">Sign in</a>` : html`<a href="/forgot-password">Forgot password?</a> New here? <a href="/signup">Create an account</a>`}</p>`;
}

/** The notice of an alert address not verified yet, with its "send again" button. */
export function unverifiedNotice(csrfToken: string, email: string): SafeHtml {
  return html`<div class="notice warn" role="status"><p>Alert e-mails are not sent until you confirm <strong>${email}</strong>: open the link we e-mailed there.</p>
<form method="post" action="/settings/verify-email">${csrfField({ csrf: csrfToken })}<button type="submit">Send the link again</button></form></div>`;
}

/**
 * The same notice for an account whose owner has not confirmed its address yet, with what else
 * waits for it. `email` is the owner's sign-in address, where the link goes.
 */
export function accountNotice(csrfToken: string, email: string): SafeHtml {
  return html`<div class="notice warn" role="status" data-account-unverified><p>Alert e-mails are not sent until you confirm <strong>${email}</strong>: open the link we e-mailed there. Until then live keys are refused (<code>ACCOUNT_NOT_VERIFIED</code>), and phones and webhook endpoints cannot be added; test keys work already.</p>
<form method="post" action="/settings/verify-email">${csrfField({ csrf: csrfToken })}<button type="submit">Send the link again</button></form></div>`;
}

/** What a page that needs a verified account says instead of its form. */
export const NEEDS_VERIFIED_ACCOUNT =
  'Confirm your address first: open the link we e-mailed you at sign-up (or send it again from this page).';

/** "Forgot password?": the request form, or what it answers (the same whether the address has an account or not). */
export function forgotPasswordView(pc: PageContext, options: { sent?: boolean; error?: string; email?: string }): SafeHtml {
  if (options.sent) {
    return html`${notice('ok', 'If an account uses this address, we sent it a link to choose a new password. It works once, for a limited time: check your e-mails.')}`;
  }
  return html`${notice('error', options.error)}
<form method="post" action="/forgot-password" class="card narrow">
  ${csrfField(pc)}
  <p>Type the e-mail you sign in with: we send it a link to choose a new password.</p>
  <label for="email">E-mail</label>
  <input id="email" name="email" type="email" autocomplete="email" required maxlength="254" value="${options.email ?? ''}">
  <button type="submit">Send me a link</button>
</form>
<p><a href="/signin">Sign in</a></p>`;
}

/** The new password form of a reset link. */
export function resetPasswordView(pc: PageContext, token: string, error?: string): SafeHtml {
  return html`${notice('error', error)}
<form method="post" action="/reset-password" class="card narrow">
  ${csrfField(pc)}
  <input type="hidden" name="token" value="${token}">
  <label for="new">New password (10 characters or more)</label>
  <input id="new" name="new" type="password" autocomplete="new-password" required minlength="10" maxlength="200">
  <button type="submit">Set the new password</button>
</form>`;
}

/**
 * What a reset that first proved the address says: what was revoked, and what to do next
 * (`revoked` undefined: the phones and endpoints could not be revoked, the owner does it).
 */
export function firstProofView(done: { keys: number; revoked?: { phones: number; endpoints: number } }): SafeHtml {
  const plural = (n: number, one: string) => `${n} ${one}${n === 1 ? '' : 's'}`;
  const others = done.revoked
    ? html`<li>${plural(done.revoked.phones, 'phone')} unpaired: each is disconnected and pairs again only with a new pairing (Phones page);</li>
<li>${plural(done.revoked.endpoints, 'webhook endpoint')} deleted;</li>`
    : html`<li><strong>the phones and webhook endpoints could not be revoked now</strong>: on the Phones page, give each phone a new pairing or remove it, and delete every webhook endpoint you did not make;</li>`;
  return html`<div class="card narrow" role="status" data-first-proof>
<p><strong>Your password was changed and every session signed out.</strong></p>
<p>This reset is the first proof that the address is yours. Whoever used the account before you could have made keys, phones and endpoints with it, so everything made before is revoked:</p>
<ul>
<li>${plural(done.keys, 'API key')} revoked (live and test): create new ones on the Keys page;</li>
${others}
<li>the signing secret replaced, and alert e-mails sent to this address again.</li>
</ul>
<p><a href="/signin">Sign in</a> with the new password.</p>
</div>`;
}

/** What a verification or password reset link that cannot be used says. */
export const USED_LINK = 'This link does not work: it was used already, it expired, or it is not whole. Ask for a new one.';

/** What using a verification link answers: the address confirmed, or the link refused. */
export function emailVerifiedView(verified: boolean): SafeHtml {
  return verified
    ? html`${notice('ok', 'Your address is confirmed: live keys, phones and webhooks work, and alert e-mails will be sent to it.')}`
    : html`${notice('error', USED_LINK)}`;
}

/** The button that uses a verification link (a POST, so that a mail scanner opening the link uses nothing). */
export function verifyEmailView(pc: PageContext, token: string): SafeHtml {
  return html`<form method="post" action="/verify-email" class="card narrow">
  ${csrfField(pc)}
  <input type="hidden" name="token" value="${token}">
  <p>Confirm this address for your account: to use live keys, phones and webhooks, and to receive its alert e-mails.</p>
  <button type="submit">Confirm the address</button>
</form>`;
}

export interface OverviewData {
  /** The owner's address while the account is not verified. */
  unverifiedAccount?: string;
  /** The alert address while it is not verified (the account being verified). */
  unverifiedEmail?: string;
  clientId: string;
  totalSent: number;
  deliveryRate: number;
  online: number;
  phones: number;
}

export function overviewView(o: OverviewData, csrfToken: string): SafeHtml {
  const warning = o.unverifiedAccount
    ? accountNotice(csrfToken, o.unverifiedAccount)
    : o.unverifiedEmail
      ? unverifiedNotice(csrfToken, o.unverifiedEmail)
      : '';
  return html`${warning}<section class="tiles">
  <div class="tile"><span class="label">Client id</span><code class="big">${o.clientId}</code></div>
  <div class="tile"><span class="label">Sent, last 7 days</span><span class="big">${o.totalSent}</span></div>
  <div class="tile"><span class="label">Delivery rate</span><span class="big">${o.deliveryRate.toFixed(2)} %</span></div>
  <div class="tile"><span class="label">Phones online</span><span class="big">${o.online} / ${o.phones}</span></div>
</section>
<p>Use your client id and an <a href="/keys">API key</a> in the <code>X-Client-ID</code> and <code>X-API-Key</code> headers. <a href="/phones">Add a phone</a> to send through it.</p>`;
}

/** The key form as typed, given back when it was refused. */
export interface KeyTyped {
  name: string;
  scopes: string[];
  ipRanges: string;
  dailyQuota: string;
}

/** What each scope opens, as the owner reads it (docs/api/keys.md has the routes). */
const SCOPE_LABELS: Record<KeyScope, string> = {
  send: 'send: send and cancel SMS, follow their status',
  otp: 'otp: send and verify one-time passwords',
  read: 'read: history, status and statistics',
  inbox: 'inbox: received SMS',
  'opt-outs': 'opt-outs: the suppression list',
  listen: 'listen: the live event stream',
};

/** A key's limits in a table cell: its scopes (or every scope) and its ranges (or any address). */
function keyLimits(k: account.ApiKey__Output): SafeHtml {
  const scopes = k.scopes.length ? k.scopes.join(', ') : 'every scope';
  const ranges = k.ipRanges.length ? html`from ${k.ipRanges.map((r, i) => html`${i ? ', ' : ''}<code>${r}</code>`)}` : 'any address';
  return html`${scopes}<br><small>${ranges}</small>`;
}

/** The key's SMS of the day against its quota. */
function keyUse(k: KeyView): SafeHtml | string {
  if (k.revokedAt) return '';
  if (!k.dailyQuota) return html`${k.usedToday} <small>(no quota)</small>`;
  const full = k.usedToday >= k.dailyQuota;
  return full
    ? html`<span class="status failed">${k.usedToday} / ${k.dailyQuota}</span> <small>quota reached</small>`
    : html`${k.usedToday} / ${k.dailyQuota}`;
}

export interface KeysPage {
  csrf: string;
  keys: KeyView[];
  /** The owner's address while the account is not verified (its live keys are refused). */
  unverifiedAccount?: string;
  welcome: boolean;
  /** A key just made: its value is shown this once. */
  fresh?: { key: string; mode: string; name: string };
  error?: string;
  /** The form as typed, given back. */
  typed?: KeyTyped;
}

/** The password field of a sensitive action's form (its re-authentication). */
export const confirmField = (id: string, label: string) =>
  html`<label for="${id}">${label}</label><input id="${id}" name="password" type="password" autocomplete="current-password" required>
    <label for="${id}-code">Authenticator code (when two-factor sign-in is on)</label><input id="${id}-code" name="code" inputmode="numeric" autocomplete="one-time-code" maxlength="20">`;

export function keysView(p: KeysPage): SafeHtml {
  const { csrf, keys, fresh, error } = p;
  const typed = p.typed ?? { name: '', scopes: [], ipRanges: '', dailyQuota: '' };
  const welcome = p.welcome
    ? notice(
        'ok',
        'Your account is ready. Create a key below, or use the live and test keys made for you (their values are not shown again: create a new one to copy it).',
      )
    : '';
  return html`${welcome}${p.unverifiedAccount ? accountNotice(csrf, p.unverifiedAccount) : ''}${notice('error', error)}
${fresh ? html`<div class="card reveal" role="status"><p><strong>Your new ${fresh.mode} key "${fresh.name}".</strong> Copy it now: it is shown only once.</p>${copyable('API key', fresh.key, 'new-key')}</div>` : ''}
<form method="post" action="/keys" class="card">
  ${csrfField({ csrf })}
  <label for="key-name">Name</label><input id="key-name" name="name" required maxlength="100" placeholder="Production server" value="${typed.name}">
  <label for="key-mode">Mode</label><select id="key-mode" name="mode"><option value="live">live</option><option value="test">test</option></select>
  <fieldset><legend>Scopes: what the key may do (none ticked: everything)</legend>${KEY_SCOPES.map(
    (scope) =>
      html`<label class="check"><input type="checkbox" name="scopes" value="${scope}" ${typed.scopes.includes(scope) ? 'checked' : ''}> ${SCOPE_LABELS[scope]}</label>`,
  )}</fieldset>
  <label for="key-ranges">Source addresses (optional): IPv4 or IPv6 ranges, such as 203.0.113.0/24 or 2001:db8::/32, separated by commas or spaces; empty: any address</label>
  <input id="key-ranges" name="ip_ranges" maxlength="2000" placeholder="203.0.113.0/24" value="${typed.ipRanges}">
  <label for="key-quota">Daily quota (optional): SMS the key may send per day (UTC); empty: no quota</label>
  <input id="key-quota" name="daily_quota" inputmode="numeric" pattern="[0-9]*" maxlength="9" value="${typed.dailyQuota}">
  ${confirmField('key-password', 'Your password')}
  <button type="submit">Create a key</button>
</form>
<div class="table-wrap"><table>
<caption>Your keys, newest first</caption>
<thead><tr><th scope="col">Name</th><th scope="col">Key</th><th scope="col">Mode</th><th scope="col">Limits</th><th scope="col">SMS today</th><th scope="col">Created by</th><th scope="col">Created</th><th scope="col">Last used</th><th scope="col">State</th></tr></thead>
<tbody>${keys.map(
    (k) => html`<tr>
  <td>${k.label}</td><td><code>${k.prefix}</code></td><td>${modeFromProto(k.mode)}</td><td>${keyLimits(k)}</td><td>${keyUse(k)}</td><td>${k.createdBy || 'operator'}</td><td>${when(k.createdAt)}</td><td>${when(k.lastUsedAt)}</td>
  <td>${k.revokedAt ? html`revoked ${when(k.revokedAt)}` : html`<form method="post" action="/keys/${k.keyId}/revoke" data-confirm="Revoke this key? Requests with it will be refused within 5 seconds.">${csrfField({ csrf })}<button type="submit" class="danger">Revoke</button></form>`}</td>
</tr>`,
  )}</tbody></table></div>`;
}

export interface SettingsNotes {
  /** The signing secret, when the user asked to see it. */
  secret?: string;
  ok?: string;
  error?: string;
  /** The fleet form as typed, when it was refused. */
  fleet?: FleetTyped;
  /** The destinations form as typed, when it was refused. */
  destinations?: DestinationsTyped;
}

/** What the settings page shows of the client. */
export interface SettingsData {
  email: string;
  verified: boolean;
  /** Whether the account proved its owner's address (the alert address may change only then). */
  accountVerified: boolean;
  fleet: FleetSettings;
  destinations: Destinations;
}

export function settingsView(csrfToken: string, alert: SettingsData, extra: SettingsNotes): SafeHtml {
  const csrf = csrfField({ csrf: csrfToken });
  const alertEmail = alert.email;
  const warning = !alert.accountVerified
    ? accountNotice(csrfToken, alertEmail)
    : alert.verified
      ? ''
      : unverifiedNotice(csrfToken, alertEmail);
  return html`${notice('ok', extra.ok)}${notice('error', extra.error)}${warning}
<section class="card">
  <h2>Signing secret</h2>
  <p>Signs the webhooks sent to a message's own <code>webhook_url</code> (<code>X-Webhook-Signature</code>). Global endpoints have secrets of their own.</p>
  ${extra.secret ? copyable('Signing secret', extra.secret, 'signing-secret') : html`<form method="post" action="/settings/secret">${csrf}${confirmField('secret-password', 'Your password, to show it')}<button type="submit">Show the signing secret</button></form>`}
  <form method="post" action="/settings/secret/rotate" data-confirm="Rotate the secret? Webhooks are signed with the new one within a minute; update your receivers.">${csrf}${confirmField('rotate-password', 'Your password, to rotate it')}<button type="submit" class="danger">Rotate the secret</button></form>
</section>
<section class="card">
  <h2>Alert e-mails</h2>
  <form method="post" action="/settings/alerts">${csrf}
    <label for="alert-email">Address that receives alerts (a webhook dropped after its last attempt)</label>
    <input id="alert-email" name="email" type="email" required value="${alertEmail}">
    ${confirmField('alert-password', 'Your password, to change it')}
    <button type="submit">Save</button>
  </form>
</section>
${fleetSection(csrf, confirmField('fleet-password', 'Your password, to change them'), alert.fleet, extra.fleet)}
${destinationsSection(csrf, alert.destinations, extra.destinations)}
<section class="card">
  <h2>Password</h2>
  <form method="post" action="/settings/password">${csrf}
    <label for="current">Current password</label><input id="current" name="current" type="password" autocomplete="current-password" required>
    <label for="new">New password (10 characters or more)</label><input id="new" name="new" type="password" autocomplete="new-password" required minlength="10">
    <button type="submit">Change the password</button>
  </form>
</section>`;
}
