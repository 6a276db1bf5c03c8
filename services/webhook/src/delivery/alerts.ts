import type { Logger, PromiseClient } from '@smsgw/platform';
import type { account } from '@smsgw/proto';
import type { Transporter } from 'nodemailer';
import type { AlertRepository, DroppedDelivery } from '../data/alert.repository';

/** The e-mail of a dropped delivery (pure: what the account owner reads). */
export function alertMail(d: DroppedDelivery, clientName: string): { subject: string; text: string } {
  const target = d.endpoint_id ? `webhook endpoint ${d.endpoint_id} (${d.url})` : `the message's webhook URL ${d.url}`;
  return {
    subject: `Webhook delivery failed: ${d.kind} to ${d.endpoint_id ?? 'a message webhook URL'}`,
    text: [
      `Hello${clientName ? ` ${clientName}` : ''},`,
      '',
      `We could not deliver the event ${d.event_id} (${d.kind}) to ${target}.`,
      `It was tried ${d.attempts} times and has been dropped.`,
      `Last error: ${d.last_error ?? 'none'}${d.last_status ? ` (HTTP ${d.last_status})` : ''}.`,
      '',
      `Delivery: ${d.delivery_id}. You can replay the event once your receiver is fixed (dashboard, or the webhook service's ReplayEvent).`,
      'Receivers must answer 2xx within 5 seconds.',
    ].join('\n'),
  };
}

/**
 * The one e-mail of the events of a batch dropped together (pure): the endpoint, how many, the
 * last error, and each event with its kind, to replay them.
 */
export function batchAlertMail(ds: readonly DroppedDelivery[], clientName: string): { subject: string; text: string } {
  const d = ds[0]!;
  return {
    subject: `Webhook delivery failed: ${ds.length} events to ${d.endpoint_id ?? 'a webhook URL'}`,
    text: [
      `Hello${clientName ? ` ${clientName}` : ''},`,
      '',
      `We could not deliver a batch of ${ds.length} events to webhook endpoint ${d.endpoint_id} (${d.url}).`,
      `It was tried ${d.attempts} times and has been dropped.`,
      `Last error: ${d.last_error ?? 'none'}${d.last_status ? ` (HTTP ${d.last_status})` : ''}.`,
      '',
      'The events:',
      ...ds.map((x) => `- ${x.event_id} (${x.kind}), delivery ${x.delivery_id}`),
      '',
      "You can replay them once your receiver is fixed (dashboard, or the webhook service's ReplayEvent).",
      'Receivers must answer 2xx within 5 seconds.',
    ].join('\n'),
  };
}

/**
 * Sends one alert e-mail per dropped delivery, or per batch of deliveries
 * dropped together, to the account's address, once that address is verified.
 * The delivery says whether its alert is due or sent, so an alert that
 * could not be sent (SMTP down) is sent by the sweep later, and one sent is
 * not sent again by another replica.
 */
export class AlertMailer {
  constructor(
    private readonly repo: AlertRepository,
    private readonly accounts: PromiseClient<account.AccountServiceClient>,
    private readonly transport: Transporter | undefined,
    private readonly from: string,
    private readonly log: Logger,
  ) {}

  readonly alertDropped = async (deliveryId: string): Promise<void> => {
    const dropped = await this.repo.dropped(deliveryId);
    if (dropped) await this.send([dropped]);
  };

  /** The one alert of a batch's deliveries dropped together. */
  readonly alertDroppedBatch = async (deliveryIds: readonly string[]): Promise<void> => {
    const dropped = await this.repo.droppedMany(deliveryIds);
    if (dropped.length > 0) await this.send(dropped);
  };

  /** One e-mail for these dropped deliveries (one, or a batch's), then their alerts marked sent. */
  async send(ds: readonly DroppedDelivery[]): Promise<void> {
    const d = ds[0]!;
    const ids = ds.map((x) => x.delivery_id);
    const about = { delivery_id: d.delivery_id, batch_id: d.batch_id ?? undefined, deliveries: ds.length, client_id: d.client_id };
    const client = await this.accounts.getClient({ clientId: d.client_id });
    const { subject, text } = ds.length === 1 ? alertMail(d, client.name) : batchAlertMail(ds, client.name);
    if (!client.emailVerified) {
      // Until its owner follows the link mailed to it, the address may be anyone's: nothing is
      // sent there, and the alert is not sent later either.
      this.log.warn(about, 'webhook delivery dropped; alert address not verified, no e-mail');
    } else if (!this.transport) {
      this.log.warn(about, 'webhook delivery dropped; no SMTP_URL, so no alert e-mail');
    } else {
      await this.transport.sendMail({ from: this.from, to: client.email, subject, text });
      this.log.info(about, 'alert e-mail sent for a dropped webhook delivery');
    }
    await this.repo.markAlertsSent(ids);
  }

  /** Sends the alerts still due (the sweep): one e-mail per delivery, or per batch for those dropped together. */
  async sendDue(olderThanMs: number): Promise<number> {
    const groups = new Map<string, DroppedDelivery[]>();
    for (const d of await this.repo.alertsDue(olderThanMs, 500)) {
      const key = d.batch_id ?? d.delivery_id;
      const group = groups.get(key);
      if (group) group.push(d);
      else groups.set(key, [d]);
    }
    let sent = 0;
    for (const group of groups.values()) {
      try {
        await this.send(group);
        sent++;
      } catch (err) {
        this.log.warn(
          { err, delivery_id: group[0]!.delivery_id, batch_id: group[0]!.batch_id ?? undefined },
          'alert e-mail not sent; will try again',
        );
      }
    }
    return sent;
  }
}
