import { AppError, counter, newId } from '@smsgw/platform';
import type { GuardTarget } from '../data/guard.store';
import type { HoldRow } from '../data/hold.repository';
import type { Mode, OtpRow } from '../data/otp.repository';
import { endUserKey, numberKey } from '../domain/otp-code';
import type { Destination } from '../domain/otp-destination';
import { checkGuardSettings, holdToMake, type GuardSettings, type GuardSettingsInput, type WindowCounts } from '../domain/otp-guard';
import type { OtpService } from './otp-service';

const SETTINGS_CACHE_MS = 10_000;
const holdsMade = counter('otp.guard.holds', 'Prefixes and countries the pumping guard held, by scope');
const refused = counter('otp.guard.refused', 'OTPs refused by the pumping guard or the end-user limit, by reason');

/** The client's guard settings: its own, else the operator's defaults (read at most every few seconds per replica). */
export async function guardSettingsOf(service: OtpService, clientId: string): Promise<GuardSettings & { defaults: boolean }> {
  const cached = service.guard.cache.get(clientId);
  if (cached) return { ...cached, defaults: cached === service.guard.defaults };
  const own = await service.guard.settings.find(clientId);
  const settings = own ?? service.guard.defaults;
  service.guard.cache.set(clientId, settings, SETTINGS_CACHE_MS);
  return { ...settings, defaults: !own };
}

/** Sets a client's settings (each value checked); this replica uses them at once, the others within seconds. */
export async function setGuardSettings(
  service: OtpService,
  clientId: string,
  input: GuardSettingsInput,
): Promise<GuardSettings & { defaults: boolean }> {
  if (!clientId) throw new AppError('INVALID_CLIENT_ID');
  const settings = checkGuardSettings(input);
  await service.guard.settings.save(clientId, settings);
  service.guard.cache.set(clientId, settings, SETTINGS_CACHE_MS);
  return { ...settings, defaults: false };
}

/** What one OTP took of the limits and the guard, to give back if its SMS is never sent. */
export interface Admission {
  settings: GuardSettings;
  target: GuardTarget;
  /** The guard's counts with this OTP, when the guard counted it. */
  counts?: { prefix: WindowCounts; country: WindowCounts };
  release(): Promise<void>;
}

/**
 * The checks an OTP passes before it is made, in order: the end-user key's limit (when given),
 * the number's limit (10 an hour), then the pumping guard (a held prefix or country refuses it,
 * else it is counted in their windows). A refusal gives back what the earlier checks took.
 */
export async function admitOtp(
  service: OtpService,
  req: { clientId: string; mode: Mode; to: string; endUserKey: string },
  destination: Destination,
  prefixKey: string,
  otpId: string,
): Promise<Admission> {
  const settings = await guardSettingsOf(service, req.clientId);
  const target: GuardTarget = { clientId: req.clientId, mode: req.mode, prefixKey, country: destination.country };
  const taken: (() => Promise<void>)[] = [];
  const giveBack = () => Promise.all(taken.map((release) => release())).then(() => undefined);
  try {
    if (req.endUserKey) {
      const userSlot = await service.endUserLimit.take(req.clientId, req.mode, endUserKey(service.hashKey, req.endUserKey), {
        limit: settings.endUser.limit,
        windowMs: settings.endUser.windowSeconds * 1000,
      });
      if (!userSlot.allowed) {
        refused.add(1, { reason: 'end_user_limit' });
        throw new AppError('OTP_RATE_LIMITED', {
          message: `Trop de codes demandés pour cet utilisateur (end_user_key) : ${settings.endUser.limit} au plus par période de ${settings.endUser.windowSeconds} secondes.`,
          details: [{ field: 'end_user_key', code: 'OTP_RATE_LIMITED' }],
          retryAfterSeconds: userSlot.retryAfterSeconds,
        });
      }
      taken.push(() => userSlot.release());
    }
    const slot = await service.rateLimit.take(req.clientId, req.mode, numberKey(service.hashKey, req.to));
    if (!slot.allowed) throw new AppError('OTP_RATE_LIMITED', { retryAfterSeconds: slot.retryAfterSeconds });
    taken.push(() => slot.release());
    if (!settings.enabled) return { settings, target, release: giveBack };
    const recorded = await service.guard.store.record(target, otpId, settings.windowSeconds * 1000);
    if (recorded.held) {
      refused.add(1, { reason: `held_${recorded.held}` });
      throw new AppError('OTP_FRAUD_SUSPECTED', {
        details: [{ field: 'to', code: 'OTP_FRAUD_SUSPECTED', scope: recorded.held }],
        retryAfterSeconds: Math.max(1, Math.ceil(recorded.retryAfterMs / 1000)),
      });
    }
    taken.push(() => service.guard.store.unrecord(target, otpId));
    return { settings, target, counts: { prefix: recorded.prefix, country: recorded.country }, release: giveBack };
  } catch (err) {
    await giveBack().catch(() => undefined);
    throw err;
  }
}

/**
 * After an OTP was sent: when its prefix (else its country) now asked for many codes and verified
 * few, hold it for the window, record the hold and publish `otp.fraud_suspected` (one replica
 * does, the one that made the hold). A failure here is logged: the OTP itself was sent.
 */
export async function holdIfTripped(service: OtpService, admission: Admission, destination: Destination): Promise<HoldRow | undefined> {
  const { counts, settings, target } = admission;
  const scope = counts && holdToMake(counts, settings);
  if (!scope || !counts) return undefined;
  const holdId = newId('hold');
  const windowMs = settings.windowSeconds * 1000;
  let made = false;
  let hold: HoldRow;
  try {
    made = await service.guard.store.hold(target, scope, holdId, windowMs);
    if (!made) return undefined;
    hold = await service.guard.holds.insert({
      hold_id: holdId,
      client_id: target.clientId,
      mode: target.mode as Mode,
      scope,
      prefix: scope === 'prefix' ? destination.prefix : destination.callingCode,
      prefix_key: target.prefixKey,
      country: destination.country,
      requests: counts[scope].requests,
      verified: counts[scope].verified,
      window_seconds: settings.windowSeconds,
      event_id: newId('evt'),
    });
  } catch (err) {
    // A hold its owner could neither see nor release must not stay.
    if (made) await service.guard.store.release(target, scope, holdId).catch(() => undefined);
    service.log.error({ err, hold_id: holdId }, 'making an OTP hold failed; the prefix stays open');
    return undefined;
  }
  holdsMade.add(1, { scope });
  service.log.warn({ client_id: hold.client_id, hold_id: hold.hold_id, scope, country: hold.country }, 'OTP pumping suspected; held');
  try {
    await service.guard.events?.publish(hold);
  } catch (err) {
    service.log.error(
      { err, hold_id: holdId },
      'publishing otp.fraud_suspected failed; the hold stands, its owner sees it in the dashboard',
    );
  }
  return hold;
}

/** Counts a verified code in its prefix's and country's windows (OTPs made before the guard have no prefix key). */
export async function countVerified(service: OtpService, row: OtpRow): Promise<void> {
  if (!row.prefix_key || !row.country) return;
  try {
    const settings = await guardSettingsOf(service, row.client_id);
    await service.guard.store.verified(
      { clientId: row.client_id, mode: row.mode, prefixKey: row.prefix_key, country: row.country },
      row.otp_id,
      row.created_at,
      settings.windowSeconds * 1000,
    );
  } catch (err) {
    service.log.warn({ err, otp_id: row.otp_id }, 'counting a verified code in the guard failed');
  }
}

/** The client's holds (both modes when `mode` is undefined): live ones and those that ended lately. */
export async function listHolds(service: OtpService, clientId: string, mode?: Mode): Promise<HoldRow[]> {
  return service.guard.holds.list(clientId, mode);
}

/**
 * The owner releases a hold: OTPs there go again at once, and the counts that tripped it are
 * forgotten (else the next code would trip it again). A hold that ended already is answered as is.
 */
export async function releaseHold(service: OtpService, clientId: string, holdId: string): Promise<HoldRow> {
  const hold = holdId ? await service.guard.holds.find(clientId, holdId) : undefined;
  if (!hold) throw new AppError('OTP_NOT_FOUND', { message: 'Suspension introuvable.' });
  if (!hold.active) return hold;
  await service.guard.store.release(
    { clientId: hold.client_id, mode: hold.mode, prefixKey: hold.prefix_key, country: hold.country },
    hold.scope,
    hold.hold_id,
  );
  const released = await service.guard.holds.release(clientId, holdId);
  service.log.info({ client_id: clientId, hold_id: holdId }, 'OTP hold released by its owner');
  return released ?? hold;
}
