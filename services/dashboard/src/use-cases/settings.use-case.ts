import type { SessionStore } from '../http/session';
import type { Upstreams } from './upstreams';

/** Where the client's alert e-mails go. */
export async function alertEmail(up: Upstreams, clientId: string): Promise<string> {
  return (await up.accounts.getClient({ clientId })).email;
}

export async function signingSecret(up: Upstreams, clientId: string): Promise<string> {
  return (await up.accounts.getSigningSecret({ clientId })).secret;
}

/** A new signing secret: the new one. */
export async function rotateSigningSecret(up: Upstreams, clientId: string): Promise<string> {
  return (await up.accounts.rotateSigningSecret({ clientId })).secret;
}

export async function changeAlertEmail(up: Upstreams, clientId: string, email: string): Promise<void> {
  await up.accounts.updateClient({ clientId, email, name: '' });
}

/** A password change; the user's other sessions end. False when the current password is wrong. */
export async function changePassword(
  up: Upstreams,
  sessions: SessionStore,
  user: { userId: string; token: string },
  passwords: { current: string; next: string },
): Promise<boolean> {
  const { changed } = await up.accounts.changePassword({
    userId: user.userId,
    currentPassword: passwords.current,
    newPassword: passwords.next,
  });
  if (!changed) return false;
  await sessions.endOthers(user.userId, user.token);
  return true;
}
