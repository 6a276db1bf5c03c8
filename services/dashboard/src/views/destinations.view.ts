import { SPECIAL_NUMBER_TYPES, type Destinations } from '@smsgw/platform';
import { NUMBER_TYPE_LABELS, type DestinationsForm } from '../use-cases/destinations.use-case';
import { html, type SafeHtml } from './html';

/** The destinations form as typed and refused: the values given back and the fields to mark. */
export interface DestinationsTyped {
  form: DestinationsForm;
  /** `sms_countries`, `otp_countries`, `otp_number_types`. */
  invalid: string[];
}

const invalidAttr = (typed: DestinationsTyped | undefined, name: string) =>
  typed?.invalid.includes(name) ? html`aria-invalid="true" aria-describedby="destinations-error"` : '';

const list = (codes: readonly string[]) => (codes.length === 0 ? 'every country' : codes.join(', '));

/**
 * The Destinations card of the settings page: the countries ordinary sends and OTPs may reach
 * (empty: every country), and the number types that are never a user's phone OTPs may reach anyway.
 */
export function destinationsSection(csrf: SafeHtml, current: Destinations, typed?: DestinationsTyped): SafeHtml {
  const sms = typed ? typed.form.smsCountries : current.smsCountries.join(', ');
  const otp = typed ? typed.form.otpCountries : current.otpCountries.join(', ');
  const types = typed ? typed.form.otpNumberTypes : current.otpNumberTypes;
  return html`<section class="card" id="destinations">
  <h2>Destinations</h2>
  <p>Where your sends may go. A send to a country outside its list is refused with <code>DESTINATION_NOT_ALLOWED</code> (403). Now: messages to <strong data-now="sms_countries">${list(current.smsCountries)}</strong>; one-time passwords to <strong data-now="otp_countries">${list(current.otpCountries)}</strong>.</p>
  <form method="post" action="/settings/destinations">${csrf}
    <label for="dest-sms">Countries of messages (ISO codes such as FR, BE; empty: every country)</label>
    <input id="dest-sms" name="sms_countries" value="${sms}" placeholder="every country" autocapitalize="characters" ${invalidAttr(typed, 'sms_countries')}>
    <label for="dest-otp">Countries of one-time passwords (empty: every country)</label>
    <input id="dest-otp" name="otp_countries" value="${otp}" placeholder="every country" autocapitalize="characters" ${invalidAttr(typed, 'otp_countries')}>
    <fieldset ${invalidAttr(typed, 'otp_number_types')}><legend>Numbers that are never a person's phone: one-time passwords to them are refused (<code>NUMBER_TYPE_NOT_ALLOWED</code>), unless allowed here</legend>
    ${SPECIAL_NUMBER_TYPES.map(
      (t) =>
        html`<label class="check"><input type="checkbox" name="otp_number_types" value="${t}" ${types.includes(t) ? 'checked' : ''}> Allow ${NUMBER_TYPE_LABELS[t]}</label>`,
    )}
    </fieldset>
    <button type="submit">Apply the destinations</button>
  </form>
</section>`;
}
