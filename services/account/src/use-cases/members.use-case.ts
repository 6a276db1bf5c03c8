import { randomBytes } from 'node:crypto';
import { AppError, hashSecret, newId } from '@smsgw/platform';
import type { AccountRepository, UserRow } from '../data/account.repository';
import type { Actor, InvitationRow, MembersRepository } from '../data/members.repository';
import { checkEmail } from '../domain/api-key';
import { checkPassword, hashPassword } from '../domain/password';
import { checkRole } from '../domain/roles';
import { getClient } from './clients.use-case';

/** How long an invitation link works. */
export const INVITATION_TTL_MS = 7 * 24 * 3600_000;

export interface MemberRepos {
  repo: AccountRepository;
  members: MembersRepository;
}

/**
 * The member acting on the account's members: an owner of this account (the dashboard checks the
 * role too; the account service does not take its word for it). `self` lets any member leave.
 */
async function ownerActing(repo: AccountRepository, clientId: string, userId: string, address: string, self?: string): Promise<Actor> {
  const user = userId ? await repo.findUser(userId) : undefined;
  if (!user || user.client_id !== clientId) throw new AppError('NOT_FOUND');
  if (user.role !== 'owner' && user.user_id !== self) throw new AppError('ROLE_NOT_ALLOWED');
  return { actorUserId: user.user_id, actor: user.email, address };
}

const emailTaken = () =>
  new AppError('VALIDATION_ERROR', {
    details: [{ field: 'email', code: 'EMAIL_TAKEN', message: 'Cette adresse est déjà membre d’un compte.' }],
  });

/** An invitation's link token (256 random bits; only its SHA-256 is kept) for the caller to mail. */
export async function inviteMember(
  { repo, members }: MemberRepos,
  request: { clientId: string; email: string; role: string; userId: string; address: string },
): Promise<{ token: string; email: string; expiresAt: string }> {
  checkEmail(request.email);
  const role = checkRole(request.role);
  const by = await ownerActing(repo, request.clientId, request.userId, request.address);
  const client = await getClient(repo, request.clientId);
  // Members join an account whose owner proved the address: an account squatted before its proof invites no one.
  if (!client.account_verified_at) throw new AppError('ACCOUNT_NOT_VERIFIED');
  if (await repo.findUserByEmail(request.email)) throw emailTaken();
  const plain = randomBytes(32).toString('base64url');
  const expiresAt = new Date(Date.now() + INVITATION_TTL_MS);
  await members.invite({ hash: hashSecret(plain), clientId: request.clientId, email: request.email, role, expiresAt }, by);
  return { token: plain, email: request.email, expiresAt: expiresAt.toISOString() };
}

export async function getInvitation(members: MembersRepository, token: string): Promise<InvitationRow | undefined> {
  return token ? members.findInvitation(hashSecret(token)) : undefined;
}

/** A new member from an invitation and a password (the sign-up's rules); undefined when the link does not work. */
export async function acceptInvitation(
  members: MembersRepository,
  request: { token: string; password: string; address: string },
): Promise<UserRow | undefined> {
  if (!request.token || !(await getInvitation(members, request.token))) return undefined;
  checkPassword(request.password);
  const user = { userId: newId('usr'), passwordHash: await hashPassword(request.password) };
  return members.accept(hashSecret(request.token), user, request.address);
}

export async function listMembers(
  { repo, members }: MemberRepos,
  clientId: string,
): Promise<{ members: UserRow[]; invitations: InvitationRow[] }> {
  await getClient(repo, clientId);
  const [users, invitations] = await Promise.all([members.listMembers(clientId), members.pendingInvitations(clientId)]);
  return { members: users, invitations };
}

export async function changeMemberRole(
  { repo, members }: MemberRepos,
  request: { clientId: string; memberUserId: string; role: string; userId: string; address: string },
): Promise<UserRow> {
  const role = checkRole(request.role);
  const by = await ownerActing(repo, request.clientId, request.userId, request.address);
  return members.changeRole(request.clientId, request.memberUserId, role, by);
}

/** Removes a member; a member may leave (remove itself), unless it is the last owner. */
export async function removeMember(
  { repo, members }: MemberRepos,
  request: { clientId: string; memberUserId: string; userId: string; address: string },
): Promise<UserRow> {
  const by = await ownerActing(repo, request.clientId, request.userId, request.address, request.memberUserId);
  return members.remove(request.clientId, request.memberUserId, by);
}

export async function withdrawInvitation(
  { repo, members }: MemberRepos,
  request: { clientId: string; email: string; userId: string; address: string },
): Promise<InvitationRow> {
  const by = await ownerActing(repo, request.clientId, request.userId, request.address);
  const withdrawn = await members.withdraw(request.clientId, request.email, by);
  if (!withdrawn) throw new AppError('NOT_FOUND');
  return withdrawn;
}
