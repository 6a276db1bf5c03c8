import { AppError, modeFromProto, modeToProto, TtlCache, type Callers } from '@smsgw/platform';
import type { AsyncHandlers, Logger, PromiseClient } from '@smsgw/platform';
import type { message, otp } from '@smsgw/proto';
import type { EndUserLimit } from '../data/end-user-limit.store';
import type { GuardSettingsRepository } from '../data/guard-settings.repository';
import type { GuardStore } from '../data/guard.store';
import type { HoldRepository, HoldRow } from '../data/hold.repository';
import type { OtpRepository } from '../data/otp.repository';
import type { OtpRateLimit } from '../data/rate-limit.store';
import { settingsInput, type GuardSettings } from '../domain/otp-guard';
import type { FraudEventPublisher } from '../events/fraud-event.publisher';
import { guardSettingsOf, listHolds, releaseHold, setGuardSettings } from '../use-cases/otp-guard.use-case';
import type { OtpService } from '../use-cases/otp-service';
import { getOtpStats } from '../use-cases/otp-stats.use-case';
import { sendOtp } from '../use-cases/send-otp.use-case';
import { verifyOtp } from '../use-cases/verify-otp.use-case';
import { MessageSms } from './message-sms.client';

export interface OtpDeps {
  repo: OtpRepository;
  rateLimit: OtpRateLimit;
  messages: PromiseClient<message.MessageServiceClient>;
  hashKey: Buffer;
  /** Seals an OTP's SMS text while its SMS is not known to be stored. */
  sealKey: Buffer;
  /** How long a send-otp Idempotency-Key answers the OTP it made. */
  idempotencyTtlSeconds: number;
  guard: {
    store: GuardStore;
    settings: GuardSettingsRepository;
    defaults: GuardSettings;
    holds: HoldRepository;
    events?: FraudEventPublisher;
  };
  endUserLimit: EndUserLimit;
  keepExpiredHours: number;
  log: Logger;
}

/**
 * Who may call each method, by the identity of its client certificate (docs/operators/security.md lists them all).
 * A new method must be listed here; startGrpcService refuses any other caller with PERMISSION_DENIED.
 */
export const otpCallers: Callers<otp.OtpServiceHandlers> = {
  SendOtp: ['gateway'],
  VerifyOtp: ['gateway'],
  GetOtpStats: ['gateway', 'dashboard'],
  GetGuardSettings: ['dashboard', 'admin'],
  SetGuardSettings: ['dashboard', 'admin'],
  ListHolds: ['dashboard', 'admin'],
  ReleaseHold: ['dashboard', 'admin'],
};

const guardOut = (clientId: string, s: GuardSettings & { defaults: boolean }): otp.GuardSettings => ({
  clientId,
  enabled: s.enabled,
  windowSeconds: s.windowSeconds,
  prefixMinRequests: s.prefix.minRequests,
  prefixMinConversion: s.prefix.minConversion,
  countryMinRequests: s.country.minRequests,
  countryMinConversion: s.country.minConversion,
  endUserLimit: s.endUser.limit,
  endUserWindowSeconds: s.endUser.windowSeconds,
  defaults: s.defaults,
});

const holdOut = (h: HoldRow): otp.Hold => ({
  holdId: h.hold_id,
  clientId: h.client_id,
  mode: modeToProto(h.mode),
  scope: h.scope,
  prefix: h.prefix,
  country: h.country,
  requests: h.requests,
  verified: h.verified,
  windowSeconds: h.window_seconds,
  heldAt: h.held_at.toISOString(),
  heldUntil: h.held_until.toISOString(),
  releasedAt: h.released_at?.toISOString() ?? '',
  active: h.active,
});

/** The gRPC methods of `smsgw.otp.v1.OtpService`: each reads its request, runs one use case, maps the answer. */
export function otpHandlers({ messages, guard, ...deps }: OtpDeps): AsyncHandlers<otp.OtpServiceHandlers> {
  const service: OtpService = {
    ...deps,
    sms: new MessageSms(messages),
    guard: { ...guard, cache: new TtlCache<GuardSettings>({ maxEntries: 10_000 }) },
  };
  const clientOf = (clientId: string) => {
    if (!clientId) throw new AppError('INVALID_CLIENT_ID');
    return clientId;
  };
  return {
    async SendOtp(req) {
      return sendOtp(service, { ...req, mode: modeFromProto(req.mode) });
    },

    async VerifyOtp(req) {
      const answer = await verifyOtp(service, req.clientId, modeFromProto(req.mode), req.otpId, req.code);
      return answer.valid
        ? { valid: true, verifiedAt: answer.verifiedAt.toISOString(), attemptsRemaining: 0 }
        : { valid: false, verifiedAt: '', attemptsRemaining: answer.attemptsRemaining };
    },

    async GetOtpStats(req) {
      const stats = await getOtpStats(service, clientOf(req.clientId), modeFromProto(req.mode), req);
      return { ...stats, failedAttempts: stats.failedAttempts, conversionRate: stats.conversionRate };
    },

    async GetGuardSettings(req) {
      return guardOut(req.clientId, await guardSettingsOf(service, clientOf(req.clientId)));
    },

    async SetGuardSettings(req) {
      const settings = await setGuardSettings(service, clientOf(req.clientId), {
        ...settingsInput({
          enabled: req.enabled,
          windowSeconds: req.windowSeconds,
          prefix: { minRequests: req.prefixMinRequests, minConversion: req.prefixMinConversion },
          country: { minRequests: req.countryMinRequests, minConversion: req.countryMinConversion },
          endUser: { limit: req.endUserLimit, windowSeconds: req.endUserWindowSeconds },
        }),
      });
      return guardOut(req.clientId, settings);
    },

    async ListHolds(req) {
      const mode = req.mode === 'MODE_LIVE' || req.mode === 'MODE_TEST' ? modeFromProto(req.mode) : undefined;
      return { holds: (await listHolds(service, clientOf(req.clientId), mode)).map(holdOut) };
    },

    async ReleaseHold(req) {
      return holdOut(await releaseHold(service, clientOf(req.clientId), req.holdId));
    },
  };
}
