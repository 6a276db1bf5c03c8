import QRCode from 'qrcode';
import { html, trusted, type SafeHtml } from './html';
import { csrfField, notice, type PageContext } from './layout';

export interface ProfileNotes {
  ok?: string;
  error?: string;
  /** An enrolment begun: the secret to scan (its otpauth URI) or type. */
  enrolment?: { secret: string; otpauthUri: string };
  /** The recovery codes of an enrolment just confirmed: shown this once. */
  recoveryCodes?: string[];
}

/** The member's own page: two-factor sign-in (enrol, recovery codes, turn off), the password, leaving the account. */
export async function profileView(
  csrf: string,
  me: { email: string; role: string; twoFactor: boolean; mustEnrol: boolean },
  notes: ProfileNotes,
): Promise<SafeHtml> {
  const c = csrfField({ csrf });
  const enrolment = notes.enrolment
    ? html`<div class="card" data-enrolment>
  <p>Scan this QR code with your authenticator app (or type the key), then type the code it shows.</p>
  <figure class="qr totp-qr" data-qr-payload="${notes.enrolment.otpauthUri}">${trusted(
    await QRCode.toString(notes.enrolment.otpauthUri, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 }),
  )}<figcaption>Two-factor QR code</figcaption></figure>
  <p>Key: <code data-totp-secret>${notes.enrolment.secret}</code></p>
  <form method="post" action="/profile/two-factor/confirm">${c}
    <label for="enrol-code">Code from the app</label>
    <input id="enrol-code" name="code" inputmode="numeric" autocomplete="one-time-code" required maxlength="20">
    <button type="submit">Turn on two-factor sign-in</button>
  </form></div>`
    : '';
  const codes = notes.recoveryCodes
    ? html`<div class="card" data-recovery-codes><p><strong>Your recovery codes, shown only now.</strong> Each signs you in once without the app: keep them somewhere safe.</p>
  <ul class="codes">${notes.recoveryCodes.map((code) => html`<li><code>${code}</code></li>`)}</ul></div>`
    : '';
  const twoFactor = me.twoFactor
    ? html`<p>Two-factor sign-in is <strong>on</strong>.</p>
<form method="post" action="/profile/two-factor/disable" class="card narrow">${c}
  <label for="off-password">Your password</label><input id="off-password" name="password" type="password" autocomplete="current-password" required>
  <label for="off-code">Authenticator code</label><input id="off-code" name="code" inputmode="numeric" autocomplete="one-time-code" required maxlength="20">
  <button type="submit" class="danger">Turn off two-factor sign-in</button>
</form>`
    : html`<p>Two-factor sign-in is <strong>off</strong>.${me.mustEnrol ? ' This account requires it: set it up to open the other pages.' : ''}</p>
${enrolment || html`<form method="post" action="/profile/two-factor/begin">${c}<button type="submit">Set up two-factor sign-in</button></form>`}`;
  return html`${notice('ok', notes.ok)}${notice('error', notes.error)}
<p>You are <strong>${me.email}</strong>, <strong>${me.role}</strong> of this account.</p>
${codes}
<h2>Two-factor sign-in</h2>
${twoFactor}
<h2>Password</h2>
<form method="post" action="/profile/password" class="card narrow">${c}
  <label for="current">Current password</label><input id="current" name="current" type="password" autocomplete="current-password" required>
  <label for="new">New password (10 characters or more)</label><input id="new" name="new" type="password" autocomplete="new-password" required minlength="10" maxlength="200">
  <button type="submit">Change the password</button>
</form>
<h2>Leave the account</h2>
<form method="post" action="/profile/leave" data-confirm="Leave this account? You lose access at once.">${c}<button type="submit" class="danger">Leave the account</button></form>`;
}

/** The second step of a sign-in: the code of the authenticator app, or a recovery code. */
export function secondFactorView(pc: PageContext, next: string, error?: string): SafeHtml {
  return html`${notice('error', error)}
<form method="post" action="/signin/code?next=${encodeURIComponent(next)}" class="card narrow">
  ${csrfField(pc)}
  <label for="code">Code from your authenticator app (or a recovery code)</label>
  <input id="code" name="code" inputmode="numeric" autocomplete="one-time-code" required maxlength="20" autofocus>
  <button type="submit">Verify</button>
</form>`;
}
