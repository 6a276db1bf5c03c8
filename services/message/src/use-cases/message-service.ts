import type { Logger } from '@smsgw/platform';
import type { MessageConfig } from '../config';
import type { CampaignUploadRepository } from '../data/campaign-upload.repository';
import type { CampaignRepository } from '../data/campaign.repository';
import type { HistoryRepository } from '../data/history.repository';
import type { IdempotencyKeyRepository } from '../data/idempotency-key.repository';
import type { FleetRepository } from '../data/fleet.repository';
import type { MessageRepository } from '../data/message.repository';
import type { OptOutRepository } from '../data/opt-out.repository';
import type { QueueRepository } from '../data/queue.repository';
import type { ReceivedRepository } from '../data/received.repository';
import type { OtpFallbackTimers } from '../events/otp-fallback.timers';
import type { ScheduledSends } from '../events/scheduled-sends';
import type { SmsEventPublisher } from '../events/sms-event.publisher';
import type { WakeUpPublisher } from '../events/wake-up.publisher';
import type { ReconcileRepository } from '../data/reconcile.repository';
import type { DeviceOwnership } from './device-ownership';

/** What the message service's use cases work with, built once in `main.ts`. */
export interface MessageService {
  messages: MessageRepository;
  queue: QueueRepository;
  fleet: FleetRepository;
  /** The public events (`sms.failed` of messages a removed phone leaves behind). */
  events: SmsEventPublisher;
  keys: IdempotencyKeyRepository;
  history: HistoryRepository;
  /** What the phones' digests repaired (protocol 7). */
  reconcile: Pick<ReconcileRepository, 'countsOf'>;
  /** The SMS the client's phones received. */
  received: ReceivedRepository;
  /** The suppression lists and their keyword settings. */
  optOuts: OptOutRepository;
  wakeUps: WakeUpPublisher;
  /** CSV campaigns (the dashboard) and the holding of their messages. */
  campaigns: CampaignRepository;
  /** Campaign files between their upload and their send. */
  campaignUploads: CampaignUploadRepository;
  /** Absent in tests that run no scheduler. */
  scheduledSends?: ScheduledSends;
  /** Whether the devices sends name are their clients' (asked of the device-hub, then kept). */
  devices: DeviceOwnership;
  /** The timers of OTPs' fallback after a delay; absent in tests that run no scheduler. */
  otpFallbackTimers?: OtpFallbackTimers;
  config: Pick<MessageConfig, 'pacing' | 'retention' | 'idempotencyTtlSeconds' | 'otp' | 'campaignUploads'>;
  log: Logger;
}

/** The average time between two SMS of one phone, which estimated deliveries count with. */
export const averagePacingMs = ({ config }: MessageService) => (config.pacing.minMs + config.pacing.maxMs) / 2;
