import { status as grpcStatus } from '@grpc/grpc-js';
import { AppError, counter, ERROR_CATALOG, newId, openText, sealText } from '@smsgw/platform';
import type { Mode, OtpRow } from '../data/otp.repository';
import { hashCode, prefixKey, randomCode, testCode } from '../domain/otp-code';
import { destinationOf } from '../domain/otp-destination';
import { MAX_END_USER_KEY } from '../domain/otp-guard';
import { otpOptions, renderText, MAX_EXPIRY_SECONDS, type OtpOptions } from '../domain/otp-text';
import { admitOtp, holdIfTripped } from './otp-guard.use-case';
import type { OtpService } from './otp-service';

const sent = counter('otp.sent', 'OTPs made and their SMS queued, by mode');

/** A send-otp request as the gateway passes it on. */
export interface SendOtpInput {
  clientId: string;
  mode: Mode;
  deviceId: string;
  to: string;
  length: number;
  expirySeconds: number;
  template: string;
  metadataJson: string;
  idempotencyKey: string;
  requestHash: string;
  /** The client named the device without `"failover": true`: the SMS stays on it. */
  pinned?: boolean;
  /** The SIM slot to send through (1 to 8); 0 or absent: the client's SIM rule. */
  sim?: number;
  /** The caller's key for its end user (empty: none), limited on its own. */
  endUserKey?: string;
  /** Seconds after which an undelivered SMS goes through another phone; 0 or absent: only after a failure. */
  fallbackAfterSeconds?: number;
}

/** The fallback delay's bounds: long enough for a phone to deliver, within the longest expiry. */
export const FALLBACK_AFTER = { min: 10, max: MAX_EXPIRY_SECONDS };

/** The answer to a send-otp: the OTP, its SMS queued. */
export interface SentOtp {
  otpId: string;
  to: string;
  expiresAt: string;
  messageId: string;
  status: 'queued';
  replayed: boolean;
}

/**
 * A refusal after which the message service stored nothing: the OTP can be
 * forgotten. Anything else (a deadline, an unavailable service) may have
 * stored the SMS.
 */
function storedNothing(err: unknown): boolean {
  if (!(err instanceof AppError)) return false;
  const status = ERROR_CATALOG[err.code].grpc;
  return (
    status === grpcStatus.INVALID_ARGUMENT ||
    status === grpcStatus.NOT_FOUND ||
    status === grpcStatus.FAILED_PRECONDITION ||
    status === grpcStatus.RESOURCE_EXHAUSTED
  );
}

function outcomeUnknown(cause: unknown): AppError {
  return new AppError('SERVICE_UNAVAILABLE', {
    message:
      'Délai dépassé : le code a peut-être été envoyé. Réessayez avec le même en-tête Idempotency-Key : la réponse rendra le même OTP sans envoyer de second SMS.',
    retryAfterSeconds: 1,
    cause,
  });
}

/**
 * Queues the OTP's SMS under its chosen id; the same id again stores nothing new. With an
 * Idempotency-Key, then erases the sealed text and marks the SMS stored for a retry to read;
 * without one, no retry can find the OTP and its row was stored without a text: nothing to write.
 */
async function sendSms(
  { sms, repo, log }: OtpService,
  req: SendOtpInput,
  o: { otpId: string; messageId: string; expiresAt: Date; text: string; masked: string },
): Promise<void> {
  await sms.queue({
    clientId: req.clientId,
    mode: req.mode,
    deviceId: req.deviceId,
    to: req.to,
    text: o.text,
    maskedText: o.masked,
    metadataJson: req.metadataJson,
    expiresAt: o.expiresAt,
    messageId: o.messageId,
    pinned: req.pinned ?? false,
    sim: req.sim ?? 0,
    // Live OTPs that may move get the fallback; a pinned one stays on its phone (the fleet's rules).
    fallback: req.mode === 'live' && !req.pinned,
    fallbackAfterSeconds: req.mode === 'live' && !req.pinned ? (req.fallbackAfterSeconds ?? 0) : 0,
  });
  if (req.idempotencyKey) await repo.smsStored(o.otpId);
  log.debug({ otp_id: o.otpId, message_id: o.messageId }, 'OTP sent');
}

/**
 * The answer to a retry with an Idempotency-Key already used: the same OTP,
 * completed if its SMS is not known to be stored. The answer is always the
 * first one's (`status: queued`), whatever became of the SMS since.
 * Undefined when the first request provably stored no SMS and its OTP can
 * no longer be completed (expired, its sealed text erased): that OTP was
 * never given to anyone, so it is forgotten and the retry makes a new one,
 * as a retry of a send whose message was never stored stores it.
 */
async function replay(
  service: OtpService,
  req: SendOtpInput,
  options: OtpOptions,
  earlier: OtpRow & { expired: boolean },
  requestHash: string,
): Promise<SentOtp | undefined> {
  if (earlier.request_hash !== requestHash) throw new AppError('IDEMPOTENCY_KEY_REUSED');
  const answer = {
    otpId: earlier.otp_id,
    to: req.to,
    expiresAt: earlier.expires_at.toISOString(),
    messageId: earlier.message_id!,
    status: 'queued',
    replayed: true,
  } as const;
  if (earlier.sms_stored_at) return answer;
  if (earlier.sealed_text && !earlier.expired) {
    const text = openText(service.sealKey, earlier.otp_id, earlier.sealed_text);
    // The same request, so the same template and length: the masked text is the first one's.
    const { masked } = renderText(options.template, '0'.repeat(options.length));
    await sendSms(service, req, { otpId: earlier.otp_id, messageId: earlier.message_id!, expiresAt: earlier.expires_at, text, masked });
    return answer;
  }
  // It can no longer be sent: only the message service knows whether the first call stored it.
  if (await service.sms.exists(req.clientId, earlier.message_id!, req.mode)) {
    await service.repo.smsStored(earlier.otp_id);
    return answer;
  }
  // Should the first call still store its SMS late, the message service never hands out an SMS past its OTP's expiry.
  await service.repo.forgetUnsent(earlier.otp_id);
  return undefined;
}

/** The optional fields of issue 39: the end-user key and the fallback delay, checked. */
function checkExtras(req: SendOtpInput, expirySeconds: number): void {
  const key = req.endUserKey ?? '';
  if (key.length > MAX_END_USER_KEY || (key !== '' && key.trim() === '')) {
    throw new AppError('VALIDATION_ERROR', {
      message: `Le champ end_user_key doit être une chaîne de 1 à ${MAX_END_USER_KEY} caractères.`,
      details: [{ field: 'end_user_key', code: 'VALIDATION_ERROR' }],
    });
  }
  const after = req.fallbackAfterSeconds ?? 0;
  if (after !== 0 && (!Number.isInteger(after) || after < FALLBACK_AFTER.min || after >= expirySeconds)) {
    throw new AppError('VALIDATION_ERROR', {
      message: `Le champ fallback_after doit être un nombre entier de secondes d'au moins ${FALLBACK_AFTER.min}, inférieur à la durée de validité (expiry).`,
      details: [{ field: 'fallback_after', code: 'VALIDATION_ERROR' }],
    });
  }
}

/**
 * Makes an OTP and queues its SMS: the end-user key's limit, the number's
 * limit (10 an hour), the pumping guard, the code (fixed for test keys), its
 * keyed hash stored with the destination's country before the SMS leaves.
 * With an Idempotency-Key, a retry answers the same OTP, completing it after
 * a lost answer; without one, an SMS that failed for sure leaves nothing
 * behind (its counts given back). Once sent, a prefix or country that asked
 * for many codes and verified few is held.
 */
export async function sendOtp(service: OtpService, req: SendOtpInput): Promise<SentOtp> {
  const { repo, hashKey, sealKey, log } = service;
  const mode = req.mode;
  if (!req.deviceId) throw new AppError('INVALID_DEVICE_ID');
  if (!req.to) throw new AppError('INVALID_PHONE_NUMBER', { details: [{ field: 'to', code: 'INVALID_PHONE_NUMBER' }] });
  const options = otpOptions({ length: req.length, expirySeconds: req.expirySeconds, template: req.template });
  checkExtras(req, options.expirySeconds);
  const idempotency = req.idempotencyKey ? { key: req.idempotencyKey, requestHash: req.requestHash } : null;
  if (idempotency) {
    const earlier = await repo.byIdempotencyKey(req.clientId, mode, idempotency.key, service.idempotencyTtlSeconds);
    const answer = earlier && (await replay(service, req, options, earlier, idempotency.requestHash));
    if (answer) return answer;
  }
  const otpId = newId('otp');
  const destination = destinationOf(req.to);
  const guardKey = prefixKey(hashKey, destination.prefix);
  const admission = await admitOtp(
    service,
    { clientId: req.clientId, mode, to: req.to, endUserKey: req.endUserKey ?? '' },
    destination,
    guardKey,
    otpId,
  );

  const messageId = newId('msg');
  const code = mode === 'test' ? testCode(options.length) : randomCode(options.length);
  const expiresAt = new Date(Date.now() + options.expirySeconds * 1000);
  const { text, masked } = renderText(options.template, code);
  let stored: boolean;
  try {
    // Stored before the SMS leaves, so that a code read at once can be verified, with what a retry needs to send the same SMS.
    stored = await repo.insert({
      otpId,
      clientId: req.clientId,
      mode,
      codeHash: hashCode(hashKey, otpId, code),
      expiresAt,
      messageId,
      // Only a retry with the same key can complete the OTP after a lost answer: without a key its text is not kept.
      sealedText: idempotency ? sealText(sealKey, otpId, text) : null,
      idempotency,
      country: destination.country,
      deviceId: req.deviceId,
      prefixKey: guardKey,
    });
  } catch (err) {
    await admission.release().catch(() => undefined);
    throw err;
  }
  if (!stored) {
    // Another request with the same key got there first.
    await admission.release().catch(() => undefined);
    throw new AppError('IDEMPOTENCY_IN_PROGRESS', { retryAfterSeconds: 1 });
  }
  try {
    await sendSms(service, req, { otpId, messageId, expiresAt, text, masked });
  } catch (err) {
    if (!storedNothing(err)) {
      // The SMS may be stored: the OTP stays (its code can be verified if the phone gets it),
      // and a retry with the same Idempotency-Key completes it with the same code.
      log.warn({ err, otp_id: otpId }, 'OTP SMS outcome unknown; kept for a retry');
      throw outcomeUnknown(err);
    }
    // Nothing was given to anyone: the OTP counts nowhere.
    await Promise.all([admission.release(), repo.delete(otpId)]).catch((cleanup: unknown) =>
      log.warn({ err: cleanup, otp_id: otpId }, 'cleaning up a failed OTP failed'),
    );
    throw err;
  }
  sent.add(1, { mode });
  await holdIfTripped(service, admission, destination);
  return { otpId, to: req.to, expiresAt: expiresAt.toISOString(), messageId, status: 'queued', replayed: false };
}
