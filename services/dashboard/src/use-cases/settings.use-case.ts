import { AppError } from '@smsgw/platform';
import { confirmPassword, type Confirmation, type Reauthentication } from './confirm-password.use-case';
import { resendVerification, sendVerificationQuietly, type EmailLinkDeps, type ResendOutcome } from './email-links.use-case';
import { changeFleet, clientSettings, parseFleetForm, type ClientSettings, type FleetField, type FleetForm } from './fleet.use-case';
import { signInCounter, signInEmailKey, type SignInDeps } from './sign-in.use-case';

/**
 * The settings page's use cases: each does what its form asks and answers with the client's
 * settings as they are then, for the page that shows the outcome.
 */
export type WithSettings<T> = T & { settings: ClientSettings };

/** The signed-in user, as its session holds it. */
export interface SettingsUser {
  userId: string;
  email: string;
  clientId: string;
}

type ConfirmDeps = Pick<SignInDeps, 'up' | 'redis' | 'signIn'>;

/** "Show the signing secret": the password is asked again first. */
export async function revealSigningSecret(
  deps: ConfirmDeps,
  user: SettingsUser,
  password: Reauthentication,
): Promise<WithSettings<{ confirmation: Confirmation; secret?: string }>> {
  const confirmation = await confirmPassword(deps, user, password);
  if (confirmation !== 'confirmed') return { confirmation, settings: await clientSettings(deps.up, user.clientId) };
  const { secret } = await deps.up.accounts.getSigningSecret({ clientId: user.clientId });
  return { confirmation, secret, settings: await clientSettings(deps.up, user.clientId) };
}

/**
 * A new signing secret, the password asked again first (as to show it: a session left open or
 * stolen could otherwise replace it and stop every receiver from trusting the deliveries): the new one.
 */
export async function rotateSigningSecret(
  deps: ConfirmDeps,
  user: SettingsUser,
  password: Reauthentication,
): Promise<WithSettings<{ confirmation: Confirmation; secret?: string }>> {
  const confirmation = await confirmPassword(deps, user, password);
  if (confirmation !== 'confirmed') return { confirmation, settings: await clientSettings(deps.up, user.clientId) };
  const { secret } = await deps.up.accounts.rotateSigningSecret({ clientId: user.clientId });
  return { confirmation, secret, settings: await clientSettings(deps.up, user.clientId) };
}

/**
 * A new alert address, the password asked again first; a verification link is then mailed to it.
 * What fails once the password is confirmed (the account service refusing the address...) comes
 * back as `failure`, for the page to say.
 */
export async function changeAlertEmail(
  deps: ConfirmDeps & EmailLinkDeps,
  user: SettingsUser,
  password: Reauthentication,
  email: string,
): Promise<WithSettings<{ confirmation: Confirmation } | { confirmation: 'confirmed'; failure: unknown }>> {
  const confirmation = await confirmPassword(deps, user, password);
  if (confirmation !== 'confirmed') return { confirmation, settings: await clientSettings(deps.up, user.clientId) };
  try {
    await deps.up.accounts.updateClient({ clientId: user.clientId, email, name: '' });
    await sendVerificationQuietly(deps, user.clientId);
    return { confirmation, settings: await clientSettings(deps.up, user.clientId) };
  } catch (failure) {
    return { confirmation, failure, settings: await clientSettings(deps.up, user.clientId) };
  }
}

export type FleetChange =
  /** The form as typed is refused before the password is checked. */
  | { outcome: 'invalid'; errors: Partial<Record<FleetField, string>> }
  | { outcome: Exclude<Confirmation, 'confirmed'> }
  /** The account service's own refusal (its bounds). */
  | { outcome: 'refused'; error: AppError }
  | { outcome: 'saved' };

/** The fleet and SIM settings as typed: checked, then the password asked again, then stored. */
export async function saveFleetSettings(
  deps: ConfirmDeps,
  user: SettingsUser,
  password: Reauthentication,
  form: FleetForm,
): Promise<WithSettings<FleetChange>> {
  const parsed = parseFleetForm(form);
  const answer = async (change: FleetChange) => ({ ...change, settings: await clientSettings(deps.up, user.clientId) });
  if (!parsed.ok) return answer({ outcome: 'invalid', errors: parsed.errors });
  const confirmation = await confirmPassword(deps, user, password);
  if (confirmation !== 'confirmed') return answer({ outcome: confirmation });
  try {
    await changeFleet(deps.up, user.clientId, parsed.value);
  } catch (err) {
    if (!(err instanceof AppError) || err.httpStatus !== 400) throw err;
    return answer({ outcome: 'refused', error: err });
  }
  return answer({ outcome: 'saved' });
}

/** "Send the link again" of the alert address (a few per account in the window). */
export async function askVerificationAgain(deps: EmailLinkDeps, clientId: string): Promise<WithSettings<{ outcome: ResendOutcome }>> {
  const outcome = await resendVerification(deps, clientId);
  return { outcome, settings: await clientSettings(deps.up, clientId) };
}

/**
 * A password change; the user's other sessions end. What fails (a new password the account
 * service refuses...) comes back as `failure`, for the page to say.
 */
export async function changePasswordOf(
  deps: Pick<SignInDeps, 'up' | 'redis' | 'signIn' | 'sessions'>,
  user: SettingsUser & { token: string; address?: string },
  passwords: { current: string; next: string },
): Promise<WithSettings<{ outcome: Confirmation } | { failure: unknown }>> {
  try {
    const outcome = await changePassword(deps, user, passwords);
    return { outcome, settings: await clientSettings(deps.up, user.clientId) };
  } catch (failure) {
    return { failure, settings: await clientSettings(deps.up, user.clientId) };
  }
}

/**
 * A password change; the user's other sessions end. A wrong current password counts with the
 * failed sign-ins of the user's e-mail; past their limit it is not even checked.
 */
export async function changePassword(
  deps: Pick<SignInDeps, 'up' | 'redis' | 'signIn' | 'sessions'>,
  user: { userId: string; email: string; token: string; address?: string },
  passwords: { current: string; next: string },
): Promise<Confirmation> {
  const counter = signInCounter(deps);
  // The session says whose password is guessed: its e-mail's count, which sign-in also reads.
  const keys = [signInEmailKey(user.email)];
  if (!(await counter.take(keys, deps.signIn.maxFailures)).allowed) return 'throttled';
  const { changed } = await deps.up.accounts
    .changePassword({
      userId: user.userId,
      currentPassword: passwords.current,
      newPassword: passwords.next,
      actorAddress: user.address ?? '',
    })
    .catch(async (err: unknown) => {
      // A refused new password (its current one was right) or an unanswered call: not a wrong guess.
      await counter.refund(...keys);
      throw err;
    });
  if (!changed) return 'wrong';
  await counter.refund(...keys);
  await deps.sessions.endOthers(user.userId, user.token);
  return 'confirmed';
}
