import type { Logger } from 'pino';
import type { Driver } from './drivers/driver';
import type { Outbox } from './outbox';
import type { Report, Sms, SmsError } from './protocol';
import { absentSimError } from './sims';

export interface SendLoopOptions {
  outbox: Outbox;
  driver: Driver;
  /** Called with each report once it is on disk, to be sent to the hub. */
  onReport(report: Report): void;
  /** Called right before an SMS is handed to the driver (the --log-json line). */
  onHandOver?(sms: Sms): void;
  /** Protocol 8: opens an encrypted text right before sending, or says why it cannot (encrypted-texts.ts). */
  open?(sms: Sms): { sms: Sms } | { error: SmsError };
  /** Pause between accepting an SMS and handing it to the driver. */
  sendDelayMs?: number;
  logger: Logger;
}

/**
 * Sends the SMS of the outbox one at a time, in the order they were accepted. `sending` is on
 * disk before the driver is called, so that a crash during the call is never followed by a
 * second send (PROTOCOL.md §3).
 */
export class SendLoop {
  private readonly queue: Sms[] = [];
  private readonly pendingEvents = new Set<Promise<void>>();
  private running: Promise<void> = Promise.resolve();
  // Set and cleared synchronously, so that an SMS enqueued as the loop ends is never stranded.
  private active = false;
  private stopped = false;
  private wakeUp: (() => void) | undefined;

  constructor(private readonly options: SendLoopOptions) {}

  enqueue(sms: Sms): void {
    if (this.stopped) return;
    this.queue.push(sms);
    if (!this.active) {
      this.active = true;
      this.running = this.run();
    }
  }

  /**
   * Waits, through the driver, for the delivery reports of SMS sent before a restart (those the
   * outbox holds `sent`), and records them as if they had come before it.
   */
  resumeDeliveries(sent: readonly Sms[]): void {
    const { outbox, driver } = this.options;
    if (!driver.resumeDelivery) return;
    for (const sms of sent) {
      const sim = driver.slotFor(sms);
      driver.resumeDelivery(sms, {
        onDelivered: (at) => this.record(sms.message_id, () => outbox.markDelivered(sms.message_id, at, sim)),
        onFailed: (at, error) => this.record(sms.message_id, () => outbox.markFailed(sms.message_id, at, error, false, sim)),
      });
    }
  }

  /**
   * Lets the SMS being handed to the driver finish, leaves the others `accepted` for the next
   * start, and waits for the outbox writes of driver events already received.
   */
  async stop(): Promise<void> {
    this.stopped = true;
    this.wakeUp?.();
    await this.running;
    await Promise.all([...this.pendingEvents]);
  }

  private async run(): Promise<void> {
    try {
      for (let sms = this.queue.shift(); sms && !this.stopped; sms = this.queue.shift()) {
        if (this.options.sendDelayMs) await this.pause(this.options.sendDelayMs);
        if (this.stopped) return;
        try {
          await this.sendOne(sms);
        } catch (error) {
          this.options.logger.error({ err: error, message_id: sms.message_id }, 'could not send an SMS');
        }
      }
    } finally {
      this.active = false;
    }
  }

  private async sendOne(stored: Sms): Promise<void> {
    const { outbox, driver, logger } = this.options;
    // Protocol 8: an envelope that does not open, or opens too long, is refused before anything is sent.
    const opened = this.options.open ? this.options.open(stored) : { sms: stored };
    if ('error' in opened) {
      logger.warn({ message_id: stored.message_id, error_code: opened.error.code }, 'encrypted SMS not opened: reported failed, not sent');
      this.record(stored.message_id, () => outbox.markFailed(stored.message_id, new Date(), opened.error, true));
      return;
    }
    const sms = opened.sms;
    // Protocol 4: a slot the phone does not have is refused before anything is sent.
    const absent = absentSimError(sms.sim, driver.sims);
    if (absent) {
      logger.warn({ message_id: sms.message_id, sim: sms.sim }, 'SMS asks for a SIM the phone does not have: reported failed, not sent');
      this.record(sms.message_id, () => outbox.markFailed(sms.message_id, new Date(), absent, true));
      return;
    }
    // Checked right before sending, after any pause: an SMS that waited past its expiry is dropped.
    const expired = await outbox.markSendingUnlessExpired(sms.message_id);
    if (expired) {
      logger.warn({ message_id: sms.message_id, expires_at: sms.expires_at }, 'SMS expired before it was sent: reported failed, not sent');
      this.options.onReport(expired);
      return;
    }
    this.options.onHandOver?.(sms);
    logger.info({ message_id: sms.message_id, driver: driver.name }, 'handing SMS to the driver');
    let answered = false;
    const sim = driver.slotFor(sms);
    try {
      await driver.send(sms, {
        onSent: (at) => {
          answered = true;
          this.record(sms.message_id, () => outbox.markSent(sms.message_id, at, sim));
        },
        onDelivered: (at) => this.record(sms.message_id, () => outbox.markDelivered(sms.message_id, at, sim)),
        onFailed: (at, error, notSent) => {
          answered = true;
          // A not_sent failure went through no SIM, so its report names none.
          this.record(sms.message_id, () => outbox.markFailed(sms.message_id, at, error, notSent === true, notSent ? undefined : sim));
        },
      });
    } catch (error) {
      if (answered) throw error;
      const failure: SmsError = { code: 'DEVICE_ERROR', message: `the ${driver.name} driver failed` };
      this.record(sms.message_id, () => outbox.markFailed(sms.message_id, new Date(), failure, false, sim));
      throw error;
    }
  }

  private record(messageId: string, write: () => Promise<Report>): void {
    const pending = write()
      .then((report) => {
        this.options.logger.info(
          { message_id: messageId, status: report.status, error_code: report.error?.code, not_sent: report.not_sent },
          'SMS state changed',
        );
        this.options.onReport(report);
      })
      .catch((error: unknown) => {
        this.options.logger.error({ err: error, message_id: messageId }, 'could not record a driver event');
      })
      .finally(() => this.pendingEvents.delete(pending));
    this.pendingEvents.add(pending);
  }

  private pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done(): void {
        clearTimeout(timer);
        resolve();
      }
      this.wakeUp = done;
    });
  }
}
