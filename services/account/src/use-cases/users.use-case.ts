import { AppError } from '@smsgw/platform';
import type { AccountRepository, UserRow } from '../data/account.repository';
import type { AuditRepository } from '../data/audit.repository';
import { checkPassword, hashPassword, passwordMatches } from '../domain/password';

/**
 * The user with this e-mail and password; undefined for a wrong pair, as long to answer whichever
 * part is wrong. A failure of a member's e-mail is in its account's audit log, and so is a sign-in
 * (not a password asked again, `confirm`; not one that waits for its second factor either).
 */
export async function signIn(
  { repo, audit }: { repo: AccountRepository; audit: AuditRepository },
  email: string,
  password: string,
  from: { address: string; confirm: boolean },
): Promise<UserRow | undefined> {
  const user = await repo.findUserByEmail(email);
  const ok = await passwordMatches(user?.password_hash, password);
  if (!user) return undefined;
  const event = {
    clientId: user.client_id,
    actorUserId: user.user_id,
    actor: user.email,
    address: from.address.slice(0, 100),
    target: user.email,
  };
  if (!ok) {
    await audit.record({ ...event, action: 'user.sign_in_failed', details: from.confirm ? { confirm: true } : {} });
    return undefined;
  }
  if (!from.confirm && !hasSecondFactor(user)) await audit.record({ ...event, action: 'user.signed_in', details: {} });
  return user;
}

export async function getUser(repo: AccountRepository, userId: string): Promise<UserRow> {
  const user = await repo.findUser(userId);
  if (!user) throw new AppError('NOT_FOUND');
  return user;
}

/** Sets a new password when the current one is right; false when it is not. */
export async function changePassword(
  { repo, audit }: { repo: AccountRepository; audit: AuditRepository },
  userId: string,
  currentPassword: string,
  newPassword: string,
  address: string,
): Promise<boolean> {
  const user = await getUser(repo, userId);
  if (!(await passwordMatches(user.password_hash, currentPassword))) return false;
  checkPassword(newPassword);
  await repo.setPassword(user.user_id, await hashPassword(newPassword));
  await audit.record({
    clientId: user.client_id,
    actorUserId: user.user_id,
    actor: user.email,
    address: address.slice(0, 100),
    action: 'password.changed',
    target: user.email,
    details: {},
  });
  return true;
}

/** Whether signing in as this user takes a second factor too (two-factor.use-case.ts). */
export const hasSecondFactor = (user: UserRow): boolean => user.totp_enabled_at !== null;
