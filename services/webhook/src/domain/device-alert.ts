import type { PublicEvent } from '@smsgw/platform';

const CAUSES: Record<string, string> = {
  sent: 'sent',
  generic_failure: 'generic failure',
  limit_exceeded: "Android's SMS limit reached",
  no_service: 'no mobile service',
  radio_off: 'radio off',
  no_credit: 'no credit',
  recipient_failure: "failed for the recipient's number",
};

/** The alert e-mail of a `device.degraded` event, a SIM quarantined (pure: what the account owner reads). */
export function deviceAlertMail(event: PublicEvent, clientName: string): { subject: string; text: string } {
  const d = event.data as {
    device_id: string;
    name: string;
    sim: number;
    reason: string;
    recent_results: Record<string, number>;
    probe_after: string;
  };
  const phone = d.name ? `"${d.name}"` : d.device_id;
  const why = d.reason === 'failure_ratio' ? 'too many of its recent messages failed' : 'its last messages failed one after the other';
  const results = Object.entries(d.recent_results ?? {}).map(([cause, n]) => `  - ${CAUSES[cause] ?? cause}: ${n}`);
  return {
    subject: `SIM ${d.sim} of the phone ${d.name || d.device_id} is quarantined`,
    text: [
      `Hello${clientName ? ` ${clientName}` : ''},`,
      '',
      `The SIM in slot ${d.sim} of your phone ${phone} is quarantined: ${why}.`,
      'Its recent results:',
      ...results,
      '',
      "No new message goes to it: the phone's other SIMs and your other phones send",
      'its messages instead (messages that asked for this SIM or this phone wait).',
      `After ${d.probe_after} one message is tried on it; if it goes out, the SIM is`,
      'released. A SIM blocked by its carrier, out of credit or without service needs',
      'you: check it, then release it by hand in the dashboard (Phones page).',
      '',
      `Phone: ${d.device_id}`,
      `Event: ${event.event_id}`,
    ].join('\n'),
  };
}
