import type { PublicEvent } from '@smsgw/platform';

/** The alert e-mail of an `otp.fraud_suspected` event (pure: what the account owner reads). */
export function otpAlertMail(event: PublicEvent, clientName: string): { subject: string; text: string } {
  const d = event.data as {
    hold_id: string;
    scope: 'prefix' | 'country';
    prefix: string;
    country: string;
    requests: number;
    verified: number;
    conversion_rate: number;
    window_seconds: number;
    held_until: string;
  };
  const where = d.scope === 'prefix' ? `numbers starting with ${d.prefix} (${d.country})` : `every number of ${d.country} (${d.prefix})`;
  const mode = event.routing.mode === 'test' ? ' [test mode]' : '';
  return {
    subject: `SMS pumping suspected: one-time passwords to ${d.scope === 'prefix' ? d.prefix : d.country} are held${mode}`,
    text: [
      `Hello${clientName ? ` ${clientName}` : ''},`,
      '',
      `Your account asked for ${d.requests} one-time passwords`,
      `to ${where}`,
      `in the last ${Math.round(d.window_seconds / 60)} minutes; ${d.verified} of them were verified (${d.conversion_rate} %).`,
      '',
      'This is what SMS pumping fraud looks like: bots asking for codes',
      'to numbers whose traffic earns someone money, at the cost of',
      "your phones' plans.",
      '',
      `Until ${d.held_until}, further codes there`,
      `are refused with OTP_FRAUD_SUSPECTED${mode}.`,
      'If these requests are genuine, release the hold in the dashboard',
      '(One-time passwords page), where you can also change the thresholds.',
      '',
      `Hold: ${d.hold_id}`,
      `Event: ${event.event_id}`,
    ].join('\n'),
  };
}
