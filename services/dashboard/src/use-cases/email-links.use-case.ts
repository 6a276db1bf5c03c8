import { createHash } from 'node:crypto';
import { FixedWindowCounter, type Logger, type Redis } from '@smsgw/platform';
import type { SessionStore } from '../http/session';
import type { Mail, Mailer } from '../mail/mailer';
import { revokeWhatCameBefore, type RevokedBefore } from './account-verification.use-case';
import type { Upstreams } from './upstreams';

export interface EmailLimits {
  /** Verification e-mails an account may ask for in the window. */
  verificationMax: number;
  verificationWindowMs: number;
  /** Password reset requests per e-mail and per client address in the window. */
  resetMaxPerEmail: number;
  resetMaxPerAddress: number;
  resetWindowMs: number;
}

export interface EmailLinkDeps {
  up: Upstreams;
  sessions: SessionStore;
  redis: Redis;
  mailer: Mailer;
  /** The dashboard's own address, for the links (never a request's Host header). */
  publicUrl(): string;
  emailLimits: EmailLimits;
  log: Logger;
}

const minutesUntil = (iso: string) => Math.max(1, Math.round((Date.parse(iso) - Date.now()) / 60_000));
const hashed = (email: string) => createHash('sha256').update(email.trim().toLowerCase()).digest('hex');

function verificationMail(publicUrl: string, link: { token: string; email: string; expiresAt: string }): Mail {
  const hours = Math.round(minutesUntil(link.expiresAt) / 60);
  return {
    to: link.email,
    subject: 'Confirm the address of your SMS Gateway account',
    text: [
      'Hello,',
      '',
      'This address was given for an SMS Gateway account: to sign in with, or to receive its alert e-mails.',
      'To confirm it, open this link (it works once, for the next ' + (hours >= 1 ? `${hours} hours` : 'hour') + '):',
      '',
      `${publicUrl}/verify-email?token=${link.token}`,
      '',
      'Until it is confirmed, no alert is sent here, and an account signed up with it cannot use live API keys, phones or webhooks.',
      'If you did not expect this e-mail, ignore it; if someone else signed up with your address, reset the password',
      `(${publicUrl}/forgot-password): that makes the account yours and revokes everything made on it before.`,
    ].join('\n'),
  };
}

function resetMail(publicUrl: string, link: { token: string; email: string; expiresAt: string }): Mail {
  return {
    to: link.email,
    subject: 'Reset your SMS Gateway password',
    text: [
      'Hello,',
      '',
      'Someone asked to reset the password of the SMS Gateway dashboard account of this address.',
      `To choose a new password, open this link (it works once, for the next ${minutesUntil(link.expiresAt)} minutes):`,
      '',
      `${publicUrl}/reset-password?token=${link.token}`,
      '',
      'If it was not you, ignore this e-mail: your password stays as it is.',
    ].join('\n'),
  };
}

/** Mails a verification link for the client's alert address; false when it is verified already. */
export async function sendVerification(deps: EmailLinkDeps, clientId: string): Promise<boolean> {
  const link = await deps.up.accounts.issueEmailVerification({ clientId });
  if (!link.token) return false;
  await deps.mailer.send(verificationMail(deps.publicUrl(), link));
  return true;
}

/** The same, after sign-up or an address change: a mail that cannot go out now is asked for again from the notice. */
export async function sendVerificationQuietly(deps: EmailLinkDeps, clientId: string): Promise<void> {
  await sendVerification(deps, clientId).catch((err: unknown) =>
    deps.log.warn({ err, client_id: clientId }, 'verification e-mail not sent; the owner can ask again'),
  );
}

export type ResendOutcome = 'sent' | 'verified' | 'throttled';

/** "Send again": a few per account in the window. */
export async function resendVerification(deps: EmailLinkDeps, clientId: string): Promise<ResendOutcome> {
  const { verificationMax, verificationWindowMs } = deps.emailLimits;
  const counter = new FixedWindowCounter(deps.redis, { windowMs: verificationWindowMs });
  if (!(await counter.take([`dashboard:verify:client:${clientId}`], verificationMax)).allowed) return 'throttled';
  return (await sendVerification(deps, clientId)) ? 'sent' : 'verified';
}

/** Uses a verification link; false when it is unknown, used, expired, or for an address changed since. */
export async function confirmVerification(deps: EmailLinkDeps, token: string): Promise<boolean> {
  if (!token || token.length > 100) return false;
  return (await deps.up.accounts.verifyEmail({ token })).verified;
}

/**
 * A password reset request: counted per client address (when known) and per e-mail, then a link is mailed
 * when the address has a user. The answer and its timing are the same whether it has one or not:
 * the mail goes out after the answer.
 */
export async function requestPasswordReset(deps: EmailLinkDeps, ip: string | undefined, email: string): Promise<'requested' | 'throttled'> {
  const { resetMaxPerAddress, resetMaxPerEmail, resetWindowMs } = deps.emailLimits;
  const counter = new FixedWindowCounter(deps.redis, { windowMs: resetWindowMs });
  // An address a trusted proxy hid is everyone's: only the e-mail's count applies then.
  if (ip !== undefined && !(await counter.take([`dashboard:reset:ip:${ip}`], resetMaxPerAddress)).allowed) return 'throttled';
  if (!email || email.length > 254) return 'requested';
  if (!(await counter.take([`dashboard:reset:email:${hashed(email)}`], resetMaxPerEmail)).allowed) return 'throttled';
  const link = await deps.up.accounts.issuePasswordReset({ email });
  if (link.token) {
    void deps.mailer
      .send(resetMail(deps.publicUrl(), link))
      .catch((err: unknown) => deps.log.warn({ err }, 'password reset e-mail not sent'));
  }
  return 'requested';
}

/**
 * What a password reset did. `proof`: it was the first proof that the address is the owner's, so
 * what was made on the account before it is revoked: the keys (by the account service), the
 * phones' pairings and the webhook endpoints (`revoked`; undefined when a service failed, for the
 * page to tell the owner to do it by hand).
 */
export type ResetOutcome = { proof: false } | { proof: true; keys: number; revoked: RevokedBefore | undefined };

/**
 * A new password with a reset link (the sign-up's rules: VALIDATION_ERROR); every session of the
 * user ends. A reset that first proves the address revokes what was made before it. Undefined
 * when the link is unknown, used or expired.
 */
export async function resetPassword(deps: EmailLinkDeps, token: string, newPassword: string): Promise<ResetOutcome | undefined> {
  if (!token || token.length > 100) return undefined;
  const reset = await deps.up.accounts.resetPassword({ token, newPassword });
  const user = reset.user;
  if (!user?.userId) return undefined;
  await deps.sessions.endAll(user.userId);
  if (!reset.firstProof) return { proof: false };
  const revoked = await revokeWhatCameBefore(deps.up, user.clientId).catch((err: unknown) => {
    deps.log.error(
      { err, client_id: user.clientId },
      "the first proof's revocation of phones and endpoints failed; the owner is told to do it",
    );
    return undefined;
  });
  return { proof: true, keys: reset.revokedKeys, revoked };
}
