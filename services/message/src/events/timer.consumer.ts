import type { JsMsg } from '@nats-io/jetstream';
import {
  consumeTraced,
  decodeJsonPayload,
  runTimerConsumer,
  type DurableConsumer,
  type JobHandler,
  type Logger,
  type Nats,
} from '@smsgw/platform';
import type { FleetRepository } from '../data/fleet.repository';
import { fallBackWhenUndelivered } from '../use-cases/otp-fallback.use-case';
import type { OtpFallbackPayload } from './otp-fallback.timers';
import type { DueTimerPayload } from './scheduled-sends';
import { WakeUpPublisher } from './wake-up.publisher';

const DURABLE = 'message-timers';
/** A failed job run is tried this many times in all, then left to the next period. */
const MAX_ATTEMPTS = 5;

function parseDue(bytes: Uint8Array): DueTimerPayload | undefined {
  const p = decodeJsonPayload<DueTimerPayload>(bytes);
  return p && typeof p.message_id === 'string' && typeof p.device_id === 'string' && (p.mode === 'live' || p.mode === 'test')
    ? (p as DueTimerPayload)
    : undefined;
}

/**
 * Consumes the message service's timers (`timers.message.>`), one durable
 * consumer shared by the replicas:
 * - `message.due`: a scheduled message just became due; wake its device's
 *   hub (or the test-mode simulator) so that an idle phone gets it now.
 * - `message.otp-fallback`: an OTP's SMS may still be undelivered; if so it
 *   goes once through another phone (use-cases/otp-fallback.use-case.ts).
 * - `message.jobs.<job>`: a periodic job's period began; run it.
 */
export class TimerConsumer {
  private consumer?: DurableConsumer;

  constructor(
    private readonly nats: Nats,
    private readonly jobs: Record<string, JobHandler>,
    private readonly log: Logger,
    private readonly fleet?: FleetRepository,
  ) {}

  async start(): Promise<void> {
    this.consumer = await runTimerConsumer(this.nats, {
      service: 'message',
      durable: DURABLE,
      jobs: this.jobs,
      // In the trace of the send that scheduled it (the scheduler carries it on the fire).
      handlers: {
        'message.due': (msg) => consumeTraced(msg, {}, async () => this.due(msg)),
        'message.otp-fallback': (msg) => this.otpFallback(msg),
      },
      maxJobAttempts: MAX_ATTEMPTS,
      log: this.log,
    });
  }

  private due(msg: JsMsg): void {
    const due = parseDue(msg.data);
    if (!due) {
      this.log.warn({ subject: msg.subject }, 'malformed due timer dropped');
      msg.term();
      return;
    }
    if (due.mode === 'live') {
      // A timer made before the fleet has no client: no hint to its phone, whose idle sweep finds it.
      if (typeof due.client_id === 'string') {
        this.nats.nc.publish(this.nats.names.wake(due.client_id, due.device_id));
        // The message may have left that phone before it was due (failover, removal): its client's phones may take it.
        new WakeUpPublisher(this.nats).wakeClient(due.client_id, 1);
      }
    } else this.nats.nc.publish(this.nats.names.testWake);
    this.log.debug({ message_id: due.message_id, device_id: due.device_id }, 'scheduled message due; hub woken');
    msg.ack();
  }

  private async otpFallback(msg: JsMsg): Promise<void> {
    const p = decodeJsonPayload<OtpFallbackPayload>(msg.data);
    if (!p || typeof p.message_id !== 'string' || !this.fleet) {
      this.log.warn({ subject: msg.subject }, 'malformed OTP fallback timer dropped');
      msg.term();
      return;
    }
    try {
      const moved = await fallBackWhenUndelivered(this.fleet, new WakeUpPublisher(this.nats), p.message_id);
      if (moved) this.log.info({ message_id: p.message_id }, "an OTP's SMS not delivered in time goes through another phone");
      msg.ack();
    } catch (err) {
      this.log.error({ err, message_id: p.message_id }, 'the fallback of an OTP failed; it will be retried');
      msg.nak(2000);
    }
  }

  async stop(): Promise<void> {
    await this.consumer?.stop();
  }
}
