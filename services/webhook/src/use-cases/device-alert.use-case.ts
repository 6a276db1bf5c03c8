import type { Logger, PromiseClient, PublicEvent } from '@smsgw/platform';
import type { account } from '@smsgw/proto';
import type { Transporter } from 'nodemailer';
import type { DeviceAlertRepository } from '../data/device-alert.repository';
import { deviceAlertMail } from '../domain/device-alert';

/** What the owner's alert e-mail of a quarantined SIM needs: the alert path of dropped deliveries. */
export interface DeviceAlertDeps {
  repo: DeviceAlertRepository;
  accounts: PromiseClient<account.AccountServiceClient>;
  /** Undefined without SMTP_URL: the alert is logged, not sent. */
  transport: Transporter | undefined;
  from: string;
  log: Logger;
}

/**
 * The alert e-mail of one `device.degraded` event to the account's address, as the other alerts
 * go: once per event, only to a verified address. Throws when SMTP fails, so that the event comes again.
 */
export async function mailDeviceAlert(deps: DeviceAlertDeps, event: PublicEvent): Promise<'sent' | 'skipped' | 'done'> {
  const clientId = event.routing.client_id;
  if (await deps.repo.done(event.event_id)) return 'done';
  const client = await deps.accounts.getClient({ clientId });
  let state: 'sent' | 'skipped' = 'skipped';
  if (!client.emailVerified) {
    deps.log.warn({ event_id: event.event_id, client_id: clientId }, 'SIM quarantined; alert address not verified, no e-mail');
  } else if (!deps.transport) {
    deps.log.warn({ event_id: event.event_id, client_id: clientId }, 'SIM quarantined; no SMTP_URL, so no alert e-mail');
  } else {
    const { subject, text } = deviceAlertMail(event, client.name);
    await deps.transport.sendMail({ from: deps.from, to: client.email, subject, text });
    deps.log.info({ event_id: event.event_id, client_id: clientId }, 'alert e-mail sent for a quarantined SIM');
    state = 'sent';
  }
  await deps.repo.record(event.event_id, clientId, state);
  return state;
}
