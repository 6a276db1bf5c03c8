import type { Logger, TtlCache } from '@smsgw/platform';
import type { EndUserLimit } from '../data/end-user-limit.store';
import type { GuardSettingsRepository } from '../data/guard-settings.repository';
import type { GuardStore } from '../data/guard.store';
import type { HoldRepository } from '../data/hold.repository';
import type { OtpRepository } from '../data/otp.repository';
import type { OtpRateLimit } from '../data/rate-limit.store';
import type { GuardSettings } from '../domain/otp-guard';
import type { FraudEventPublisher } from '../events/fraud-event.publisher';
import type { MessageSms } from '../grpc/message-sms.client';

/** What the OTP use cases work with, built once at start-up. */
export interface OtpService {
  repo: OtpRepository;
  rateLimit: OtpRateLimit;
  sms: MessageSms;
  hashKey: Buffer;
  /** Seals an OTP's SMS text while its SMS is not known to be stored. */
  sealKey: Buffer;
  /** How long a send-otp Idempotency-Key answers the OTP it made. */
  idempotencyTtlSeconds: number;
  /** The pumping guard: its windows and holds (Redis), the clients' settings, the holds' records, their events. */
  guard: {
    store: GuardStore;
    settings: GuardSettingsRepository;
    /** Each client's settings for a few seconds: one read per client, not one per OTP. */
    cache: TtlCache<GuardSettings>;
    /** The operator's defaults (OTP_GUARD_*). */
    defaults: GuardSettings;
    holds: HoldRepository;
    /** Absent without NATS (some component tests): holds are still made, no event goes out. */
    events?: FraudEventPublisher;
  };
  endUserLimit: EndUserLimit;
  /** OTPs are kept this long after their expiry, then folded into the daily rollups of the statistics. */
  keepExpiredHours: number;
  log: Logger;
}
