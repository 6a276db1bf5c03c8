import type { PublicEvent } from '@smsgw/platform';

/** The warning e-mail of a `device.battery_low` event (pure: what the account owner reads). */
export function phoneAlertMail(event: PublicEvent, clientName: string): { subject: string; text: string } {
  const d = event.data as { device_id: string; name: string; battery: number | null; at: string };
  const phone = d.name || d.device_id;
  const level = d.battery === null ? 'low' : `${d.battery} %`;
  return {
    subject: `Phone ${phone}: battery ${level}, not charging`,
    text: [
      `Hello${clientName ? ` ${clientName}` : ''},`,
      '',
      `Your phone ${phone} reported a battery of ${level} at ${d.at}, and it is not charging.`,
      'When it runs out, it stops sending your SMS: plug it in. Its messages that may',
      'go to another of your phones will, once it is offline past your failover delay.',
      '',
      'You get this warning once until the phone charges again. Its battery over the',
      'last day is on its page in the dashboard (Phones).',
      '',
      `Phone: ${d.device_id}`,
      `Event: ${event.event_id}`,
    ].join('\n'),
  };
}
