import type { PublicEvent } from '@smsgw/platform';
import type { PhoneAlertRepository } from '../data/phone-alert.repository';
import { phoneAlertMail } from '../domain/phone-alert';
import type { OtpAlertDeps } from './otp-alert.use-case';

/** What the phone warnings need: the alert path of the OTP guard's e-mails, with their own record. */
export type PhoneAlertDeps = Omit<OtpAlertDeps, 'repo'> & { repo: PhoneAlertRepository };

/**
 * The warning e-mail of one phone alert (`device.battery_low`) to the account's address: once per
 * event, only to a verified address. Throws when SMTP fails, so that the event comes again.
 */
export async function mailPhoneAlert(deps: PhoneAlertDeps, event: PublicEvent): Promise<'sent' | 'skipped' | 'done'> {
  const clientId = event.routing.client_id;
  if (await deps.repo.done(event.event_id)) return 'done';
  const client = await deps.accounts.getClient({ clientId });
  let state: 'sent' | 'skipped' = 'skipped';
  if (!client.emailVerified) {
    deps.log.warn({ event_id: event.event_id, client_id: clientId }, 'phone alert; address not verified, no e-mail');
  } else if (!deps.transport) {
    deps.log.warn({ event_id: event.event_id, client_id: clientId }, 'phone alert; no SMTP_URL, so no e-mail');
  } else {
    const { subject, text } = phoneAlertMail(event, client.name);
    await deps.transport.sendMail({ from: deps.from, to: client.email, subject, text });
    deps.log.info({ event_id: event.event_id, client_id: clientId, kind: event.event }, 'phone alert e-mail sent');
    state = 'sent';
  }
  await deps.repo.record(event.event_id, clientId, event.event, state);
  return state;
}
