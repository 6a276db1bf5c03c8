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
 * Sends one alert e-mail per dropped delivery to the account's address, once
 * that address is verified.
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
    if (dropped) await this.send(dropped);
  };

  async send(d: DroppedDelivery): Promise<void> {
    const client = await this.accounts.getClient({ clientId: d.client_id });
    const { subject, text } = alertMail(d, client.name);
    if (!client.emailVerified) {
      // Until its owner follows the link mailed to it, the address may be anyone's: nothing is
      // sent there, and the alert is not sent later either.
      this.log.warn(
        { delivery_id: d.delivery_id, client_id: d.client_id },
        'webhook delivery dropped; alert address not verified, no e-mail',
      );
    } else if (!this.transport) {
      this.log.warn({ delivery_id: d.delivery_id, client_id: d.client_id }, 'webhook delivery dropped; no SMTP_URL, so no alert e-mail');
    } else {
      await this.transport.sendMail({ from: this.from, to: client.email, subject, text });
      this.log.info({ delivery_id: d.delivery_id, client_id: d.client_id }, 'alert e-mail sent for a dropped webhook delivery');
    }
    await this.repo.markAlertSent(d.delivery_id);
  }

  /** Sends the alerts still due (the sweep). */
  async sendDue(olderThanMs: number): Promise<number> {
    let sent = 0;
    for (const d of await this.repo.alertsDue(olderThanMs, 100)) {
      try {
        await this.send(d);
        sent++;
      } catch (err) {
        this.log.warn({ err, delivery_id: d.delivery_id }, 'alert e-mail not sent; will try again');
      }
    }
    return sent;
  }
}
