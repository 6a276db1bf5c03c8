import { AppError } from '@smsgw/platform';
import type { account } from '@smsgw/proto';
import type { Member } from '../http/context';
import { ROLES, type Role } from '../http/access';
import type { Session, SessionStore } from '../http/session';
import type { Mailer } from '../mail/mailer';
import type { Upstreams } from './upstreams';

/**
 * The signed-in member as the account service knows it now: undefined once removed (or moved to
 * another account). Read on every request, so that a removal or a demotion holds on the next
 * request, on every replica (nothing of the role is kept in the session).
 */
export async function currentMember(up: Upstreams, session: Session): Promise<Member | undefined> {
  let user: account.User__Output;
  try {
    user = await up.accounts.getUser({ userId: session.userId });
  } catch (err) {
    if (err instanceof AppError && err.code === 'NOT_FOUND') return undefined;
    throw err;
  }
  if (user.clientId !== session.clientId || !(ROLES as readonly string[]).includes(user.role)) return undefined;
  return { role: user.role as Role, twoFactor: user.twoFactor, mustEnrol: user.twoFactorRequired && !user.twoFactor };
}

export interface MembersPage {
  members: { userId: string; email: string; role: string; twoFactor: boolean; since: string }[];
  invitations: { email: string; role: string; expiresAt: string }[];
  requireTwoFactor: boolean;
}

export async function membersPage(up: Upstreams, clientId: string): Promise<MembersPage> {
  const [listed, client] = await Promise.all([up.accounts.listMembers({ clientId }), up.accounts.getClient({ clientId })]);
  return {
    members: listed.members.map((m) => ({ userId: m.userId, email: m.email, role: m.role, twoFactor: m.twoFactor, since: m.createdAt })),
    invitations: listed.invitations.map((i) => ({ email: i.email, role: i.role, expiresAt: i.expiresAt })),
    requireTwoFactor: client.requireTwoFactor,
  };
}

export interface MembersDeps {
  up: Upstreams;
  mailer: Mailer;
  publicUrl(): string;
}

/** An invitation, mailed with its link; the account service's refusal (a bad address or role, a member already) as thrown. */
export async function inviteMember(
  deps: MembersDeps,
  by: { userId: string; clientId: string; email: string; address?: string },
  invite: { email: string; role: string },
): Promise<void> {
  const issued = await deps.up.accounts.inviteMember({
    clientId: by.clientId,
    email: invite.email,
    role: invite.role,
    userId: by.userId,
    actorAddress: by.address ?? '',
  });
  const link = `${deps.publicUrl()}/invite?token=${encodeURIComponent(issued.token)}`;
  await deps.mailer.send({
    to: issued.email,
    subject: 'You are invited to an SMS Gateway account',
    text: [
      `${by.email} invites you to their SMS Gateway account as ${invite.role}.`,
      '',
      `Open this link to accept and choose your password (it works once, until ${issued.expiresAt}):`,
      link,
      '',
      'If you did not expect this invitation, ignore this e-mail.',
    ].join('\n'),
  });
}

/** What an invitation link is for; undefined when it does not work (any more). */
export async function invitationOf(up: Upstreams, token: string): Promise<account.Invitation__Output | undefined> {
  if (!token) return undefined;
  const invitation = await up.accounts.getInvitation({ token });
  return invitation.email ? invitation : undefined;
}

/** An invitation accepted with a password: the new member's first session; undefined when the link does not work. */
export async function acceptInvitation(
  deps: { up: Upstreams; sessions: SessionStore },
  token: string,
  password: string,
  address: string | undefined,
): Promise<string | undefined> {
  const user = await deps.up.accounts.acceptInvitation({ token, password, actorAddress: address ?? '' });
  if (!user.userId) return undefined;
  const { token: session } = await deps.sessions.create({ userId: user.userId, clientId: user.clientId, email: user.email });
  return session;
}

/** A member's new role (LAST_OWNER, NOT_FOUND as thrown). */
export async function changeRole(
  up: Upstreams,
  by: { userId: string; clientId: string; address?: string },
  memberUserId: string,
  role: string,
): Promise<void> {
  await up.accounts.changeMemberRole({ clientId: by.clientId, memberUserId, role, userId: by.userId, actorAddress: by.address ?? '' });
}

/** Removes a member (or the member itself, leaving); its sessions end at once (the next request would refuse them anyway). */
export async function removeMember(
  deps: { up: Upstreams; sessions: SessionStore },
  by: { userId: string; clientId: string; address?: string },
  memberUserId: string,
): Promise<void> {
  await deps.up.accounts.removeMember({ clientId: by.clientId, memberUserId, userId: by.userId, actorAddress: by.address ?? '' });
  await deps.sessions.endAll(memberUserId);
}

export async function withdrawInvitation(up: Upstreams, by: { userId: string; clientId: string; address?: string }, email: string) {
  await up.accounts.withdrawInvitation({ clientId: by.clientId, email, userId: by.userId, actorAddress: by.address ?? '' });
}

export async function requireTwoFactor(up: Upstreams, by: { userId: string; clientId: string; address?: string }, required: boolean) {
  await up.accounts.setTwoFactorRequired({ clientId: by.clientId, required, userId: by.userId, actorAddress: by.address ?? '' });
}
