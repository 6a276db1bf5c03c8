import { AppError, FixedWindowCounter } from '@smsgw/platform';
import { sendVerificationQuietly, type EmailLinkDeps } from './email-links.use-case';
import { signUp, type SignInDeps } from './sign-in.use-case';

export interface SignUpDeps extends SignInDeps, EmailLinkDeps {
  signUpLimit: { maxPerAddress: number; windowMs: number };
}

export interface SignUpForm {
  email: string;
  password: string;
  name: string;
}

/** The longest value of each field (an e-mail address's own limit, RFC 5321). */
export const SIGN_UP_LIMITS = { email: 254, name: 100, password: 200 } as const;

const LABELS: Record<keyof SignUpForm, string> = { email: 'The e-mail address', name: 'The name', password: 'The password' };

export type SignUpOutcome = { outcome: 'throttled' } | { outcome: 'signed-up'; token: string; clientId: string };

/**
 * A sign-up from `ip`: fields too long are refused (VALIDATION_ERROR) before
 * anything is counted; then the address's sign-ups are counted, and past the
 * limit refused without reaching the account service. An address a trusted proxy hid
 * (`undefined`) is everyone's and is not limited. Once signed up, a verification link is mailed to the
 * address (quietly: a mail that cannot go out now is asked for again from the notice).
 */
export async function signUpFrom(deps: SignUpDeps, ip: string | undefined, form: SignUpForm): Promise<SignUpOutcome> {
  const tooLong = (Object.keys(SIGN_UP_LIMITS) as (keyof SignUpForm)[]).filter((f) => form[f].length > SIGN_UP_LIMITS[f]);
  if (tooLong.length > 0) {
    throw new AppError('VALIDATION_ERROR', {
      details: tooLong.map((f) => ({
        field: f,
        code: 'TOO_LONG',
        message: `${LABELS[f]} must be at most ${SIGN_UP_LIMITS[f]} characters.`,
      })),
    });
  }
  const { maxPerAddress, windowMs } = deps.signUpLimit;
  if (ip !== undefined) {
    const { count } = await new FixedWindowCounter(deps.redis, { windowMs }).count(`dashboard:signup:ip:${ip}`);
    if (count > maxPerAddress) return { outcome: 'throttled' };
  }
  const { token, clientId } = await signUp(deps, form);
  await sendVerificationQuietly(deps, clientId);
  return { outcome: 'signed-up', token, clientId };
}
