import type { Logger } from '@smsgw/platform';
import type { OtpRepository } from '../data/otp.repository';
import type { OtpRateLimit } from '../data/rate-limit.store';
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
  log: Logger;
}
