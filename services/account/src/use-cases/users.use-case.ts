import { AppError } from '@smsgw/platform';
import type { AccountRepository, UserRow } from '../data/account.repository';
import { checkPassword, hashPassword, passwordMatches } from '../domain/password';

/** The user with this e-mail and password; undefined for a wrong pair, as long to answer whichever part is wrong. */
export async function signIn(repo: AccountRepository, email: string, password: string): Promise<UserRow | undefined> {
  const user = await repo.findUserByEmail(email);
  const ok = await passwordMatches(user?.password_hash, password);
  return user && ok ? user : undefined;
}

export async function getUser(repo: AccountRepository, userId: string): Promise<UserRow> {
  const user = await repo.findUser(userId);
  if (!user) throw new AppError('NOT_FOUND');
  return user;
}

/** Sets a new password when the current one is right; false when it is not. */
export async function changePassword(
  repo: AccountRepository,
  userId: string,
  currentPassword: string,
  newPassword: string,
): Promise<boolean> {
  const user = await getUser(repo, userId);
  if (!(await passwordMatches(user.password_hash, currentPassword))) return false;
  checkPassword(newPassword);
  await repo.setPassword(user.user_id, await hashPassword(newPassword));
  return true;
}
