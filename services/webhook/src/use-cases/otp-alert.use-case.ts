import type { Logger, PromiseClient, PublicEvent } from '@smsgw/platform';
import type { account } from '@smsgw/proto';
import type { Transporter } from 'nodemailer';
import type { OtpAlertRepository } from '../data/otp-alert.repository';
import { otpAlertMail } from '../domain/otp-alert';

/** What the owner's alert e-mail of a suspected SMS pumping needs: the alert path of dropped deliveries. */
export interface OtpAlertDeps {
  repo: OtpAlertRepository;
  accounts: PromiseClient<account.AccountServiceClient>;
  /** Undefined without SMTP_URL: the alert is logged, not sent. */
  transport: Transporter | undefined;
  from: string;
  log: Logger;
}

/**
 * The alert e-mail of one `otp.fraud_suspected` event to the account's address, as the alerts of
 * dropped deliveries go: once per event, only to a verified address. Throws when SMTP fails, so
 * that the event comes again.
 */
export async function mailOtpAlert(deps: OtpAlertDeps, event: PublicEvent): Promise<'sent' | 'skipped' | 'done'> {
  const clientId = event.routing.client_id;
  if (await deps.repo.done(event.event_id)) return 'done';
  const client = await deps.accounts.getClient({ clientId });
  let state: 'sent' | 'skipped' = 'skipped';
  if (!client.emailVerified) {
    deps.log.warn({ event_id: event.event_id, client_id: clientId }, 'OTP pumping suspected; alert address not verified, no e-mail');
  } else if (!deps.transport) {
    deps.log.warn({ event_id: event.event_id, client_id: clientId }, 'OTP pumping suspected; no SMTP_URL, so no alert e-mail');
  } else {
    const { subject, text } = otpAlertMail(event, client.name);
    await deps.transport.sendMail({ from: deps.from, to: client.email, subject, text });
    deps.log.info({ event_id: event.event_id, client_id: clientId }, 'alert e-mail sent for suspected OTP pumping');
    state = 'sent';
  }
  await deps.repo.record(event.event_id, clientId, state);
  return state;
}
