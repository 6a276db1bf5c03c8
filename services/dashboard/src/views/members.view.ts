import type { account } from '@smsgw/proto';
import { ROLES } from '../http/access';
import type { MembersPage } from '../use-cases/members.use-case';
import { html, type SafeHtml } from './html';
import { csrfField, notice, when, type PageContext } from './layout';

const ROLE_WORDS: Record<string, string> = {
  owner: 'everything, members included',
  admin: 'keys, phones, webhooks, settings',
  developer: 'test keys; reads everything',
  support: 'history, inbox and replies, opt-outs',
};

const roleOptions = (selected: string) =>
  ROLES.map((r) => html`<option value="${r}" ${r === selected ? html`selected` : ''}>${r} (${ROLE_WORDS[r]})</option>`);

/** The Members page: the members with their roles, the invitations pending, the invitation form, the second factor required. */
export function membersView(csrf: string, data: MembersPage, notes: { ok?: string; error?: string; self: string }): SafeHtml {
  const c = csrfField({ csrf });
  return html`${notice('ok', notes.ok)}${notice('error', notes.error)}
<table class="members">
  <thead><tr><th>Member</th><th>Role</th><th>Two-factor</th><th>Since</th><th></th></tr></thead>
  <tbody>
  ${data.members.map(
    (m) => html`<tr data-member="${m.email}">
    <td>${m.email}${m.userId === notes.self ? ' (you)' : ''}</td>
    <td><form method="post" action="/members/${m.userId}/role" class="inline">${c}
      <label class="visually-hidden" for="role-${m.userId}">Role of ${m.email}</label>
      <select id="role-${m.userId}" name="role">${roleOptions(m.role)}</select>
      <button type="submit">Change the role</button></form></td>
    <td>${m.twoFactor ? 'on' : 'off'}</td>
    <td>${when(m.since)}</td>
    <td><form method="post" action="/members/${m.userId}/remove" class="inline" data-confirm="Remove ${m.email}? They lose access at once.">${c}<button type="submit" class="danger">Remove ${m.email}</button></form></td>
  </tr>`,
  )}
  </tbody>
</table>
${
  data.invitations.length > 0
    ? html`<h2>Invitations pending</h2><ul class="invitations">${data.invitations.map(
        (i) => html`<li data-invitation="${i.email}">${i.email} as ${i.role}, until ${when(i.expiresAt)}
          <form method="post" action="/members/withdraw" class="inline">${c}<input type="hidden" name="email" value="${i.email}"><button type="submit" class="link">Withdraw</button></form></li>`,
      )}</ul>`
    : ''
}
<h2>Invite a member</h2>
<form method="post" action="/members/invite" class="card narrow">${c}
  <label for="invite-email">E-mail</label>
  <input id="invite-email" name="email" type="email" required maxlength="254">
  <label for="invite-role">Role</label>
  <select id="invite-role" name="role">${roleOptions('support')}</select>
  <button type="submit">Send the invitation</button>
</form>
<h2>Two-factor sign-in</h2>
<form method="post" action="/members/two-factor" class="card narrow">${c}
  <p>${data.requireTwoFactor ? 'Every member must sign in with a second factor: members without one are asked to set it up first.' : 'Members choose whether they sign in with a second factor.'}</p>
  <input type="hidden" name="required" value="${data.requireTwoFactor ? 'no' : 'yes'}">
  <button type="submit">${data.requireTwoFactor ? 'Stop requiring two-factor sign-in' : 'Require two-factor sign-in for every member'}</button>
</form>`;
}

/** The page an invitation link opens: whom it is from, and the password to choose. */
export function invitationView(
  pc: PageContext,
  token: string,
  invitation: account.Invitation__Output | undefined,
  error?: string,
): SafeHtml {
  if (!invitation)
    return notice('error', 'This invitation does not work: it was used, withdrawn or has expired. Ask for a new one.') as SafeHtml;
  return html`${notice('error', error)}
<form method="post" action="/invite" class="card narrow">
  ${csrfField(pc)}
  <p>You are invited to <strong>${invitation.clientName || invitation.clientId}</strong> as <strong>${invitation.role}</strong> (${ROLE_WORDS[invitation.role] ?? ''}). You will sign in as <strong>${invitation.email}</strong>.</p>
  <input type="hidden" name="token" value="${token}">
  <label for="password">Choose a password (10 characters or more)</label>
  <input id="password" name="password" type="password" autocomplete="new-password" required minlength="10" maxlength="200">
  <button type="submit">Accept the invitation</button>
</form>`;
}
