import type { Subscription } from '@nats-io/transport-node';
import { FAILURE_MESSAGES, inTrace, MAGIC_NUMBERS, type AgentReport, type Logger, type Nats, type PromiseClient } from '@smsgw/platform';
import type { message } from '@smsgw/proto';
import type { ReportPublisher } from '../events/report.publisher';

export interface TestModeSettings {
  /** Longest idle wait before looking for due test messages again. */
  pollMs: number;
  sentDelayMs: number;
  deliveryDelayMs: number;
  leaseMs: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The simulated device of test keys. It claims due test-mode messages and
 * walks each through the states a phone would report (accepted, sent, then
 * delivered, or failed for the magic numbers), on the same JetStream path as
 * a phone, so webhooks and statuses behave the same. Nothing reaches a phone.
 */
export class TestModeSimulator {
  private stopped = false;
  private wakeUp?: () => void;
  private sub?: Subscription;
  private loop?: Promise<void>;
  private readonly inFlight = new Set<Promise<void>>();

  constructor(
    private readonly messages: PromiseClient<message.MessageServiceClient>,
    private readonly nats: Nats,
    private readonly reports: ReportPublisher,
    private readonly settings: TestModeSettings,
    private readonly log: Logger,
  ) {}

  start(): void {
    this.sub = this.nats.nc.subscribe(this.nats.names.testWake, { callback: () => this.wakeUp?.() });
    this.loop = this.run();
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      let claimed: message.ClaimNextResponse__Output;
      try {
        claimed = await this.messages.claimNext({ deviceId: '', mode: 'MODE_TEST', leaseMs: this.settings.leaseMs });
      } catch (err) {
        this.log.warn({ err }, 'test-mode claim failed; retrying');
        await sleep(1000);
        continue;
      }
      const sms = claimed.message;
      if (!sms?.messageId) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, this.settings.pollMs);
          this.wakeUp = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        this.wakeUp = undefined;
        continue;
      }
      const run = inTrace('device-hub simulate', claimed.traceparent, { 'smsgw.message_id': sms.messageId, 'smsgw.mode': 'test' }, () =>
        this.simulate(sms),
      ).catch((err: unknown) => this.log.error({ err, message_id: sms.messageId }, 'test-mode simulation failed'));
      this.inFlight.add(run);
      void run.finally(() => this.inFlight.delete(run));
    }
  }

  private async simulate(sms: message.Message__Output): Promise<void> {
    const report = (status: AgentReport['status'], error?: AgentReport['error']) =>
      this.reports.publish({
        message_id: sms.messageId,
        device_id: sms.deviceId,
        status,
        at: new Date().toISOString(),
        ...(error ? { error } : {}),
      });
    await report('accepted');
    await sleep(this.settings.sentDelayMs);
    const failure = MAGIC_NUMBERS[sms.to];
    if (failure) {
      await report('failed', { code: failure, message: FAILURE_MESSAGES[failure] });
      return;
    }
    await report('sent');
    await sleep(this.settings.deliveryDelayMs);
    await report('delivered');
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.wakeUp?.();
    this.sub?.unsubscribe();
    await this.loop;
    await Promise.all(this.inFlight);
  }
}
