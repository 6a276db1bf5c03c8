import { randomBytes } from 'node:crypto';
import { hashSecret } from '@smsgw/platform';
import type { AccountRepository } from '../data/account.repository';
import { checkPassword, hashPassword } from '../domain/password';
import type { UserRow } from '../data/account.repository';
import { newSigningSecret } from '../domain/api-key';
import { getClient } from './clients.use-case';

export interface EmailLinkSettings {
  /** How long an address verification link works. */
  verificationTtlMs: number;
  /** How long a password reset link works. */
  resetTtlMs: number;
}

/** What the caller mails: the token (empty: nothing to send), the address, until when it works. */
export interface IssuedLink {
  token: string;
  email: string;
  expiresAt: string;
}

const NOTHING: IssuedLink = { token: '', email: '', expiresAt: '' };

/** 256 random bits, URL-safe; only its SHA-256 is stored. */
function newLinkToken(): { plain: string; hash: Buffer } {
  const plain = randomBytes(32).toString('base64url');
  return { plain, hash: hashSecret(plain) };
}

/**
 * A link that verifies the client's current alert address; nothing when it is verified already.
 * While the account itself is not verified, the link goes to its owner's sign-in address, which it
 * proves (the alert address cannot differ from it then, but for an account of before).
 */
export async function issueEmailVerification(repo: AccountRepository, settings: EmailLinkSettings, clientId: string): Promise<IssuedLink> {
  const client = await getClient(repo, clientId);
  const owner = client.account_verified_at ? undefined : await repo.findOwner(clientId);
  const email = owner?.email ?? client.email;
  if (!owner && client.email_verified_at) return NOTHING;
  const token = newLinkToken();
  const expiresAt = new Date(Date.now() + settings.verificationTtlMs);
  await repo.insertEmailToken({ hash: token.hash, purpose: 'verify_email', clientId, email, expiresAt });
  return { token: token.plain, email, expiresAt: expiresAt.toISOString() };
}

/** Uses up a verification link; false for an unknown, used or expired one, or an address changed since. */
export async function verifyEmail(repo: AccountRepository, token: string): Promise<{ verified: boolean; clientId: string }> {
  const used = token ? await repo.useEmailToken(hashSecret(token), 'verify_email') : undefined;
  if (!used) return { verified: false, clientId: '' };
  return { verified: await repo.markEmailVerified(used.client_id, used.email), clientId: used.client_id };
}

/** A reset link for the user of this e-mail; nothing (the caller answers the same) when there is none. */
export async function issuePasswordReset(repo: AccountRepository, settings: EmailLinkSettings, email: string): Promise<IssuedLink> {
  const user = email ? await repo.findUserByEmail(email) : undefined;
  if (!user) return NOTHING;
  const token = newLinkToken();
  const expiresAt = new Date(Date.now() + settings.resetTtlMs);
  await repo.insertEmailToken({
    hash: token.hash,
    purpose: 'reset_password',
    clientId: user.client_id,
    userId: user.user_id,
    email: user.email,
    expiresAt,
  });
  return { token: token.plain, email: user.email, expiresAt: expiresAt.toISOString() };
}

/** What a reset did: the user, and whether it was the account's first proof of its address (and the keys it revoked then). */
export interface PasswordReset {
  user: UserRow;
  firstProof: boolean;
  revokedKeys: number;
}

/**
 * A new password with a reset link: the sign-up's rules first (WEAK_PASSWORD, the link is not
 * used up), then the link is used up; the user's other reset links are voided. A reset that is
 * the account's first proof of its address revokes its keys, signing secret and links of before
 * (the repository's `resetPassword`). Undefined for an unknown, used or expired link.
 */
export async function resetPassword(repo: AccountRepository, token: string, newPassword: string): Promise<PasswordReset | undefined> {
  checkPassword(newPassword);
  const used = token ? await repo.useEmailToken(hashSecret(token), 'reset_password') : undefined;
  if (!used?.user_id) return undefined;
  const reset = await repo.resetPassword(used.user_id, used.email, await hashPassword(newPassword), newSigningSecret());
  const user = reset && (await repo.findUser(used.user_id));
  return reset && user && { user, ...reset };
}
