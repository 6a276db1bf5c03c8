import type { PublicEvent } from '@smsgw/platform';

/** The warning e-mail of a `device.battery_low` or `device.offline` event (pure: what the account owner reads). */
export function phoneAlertMail(event: PublicEvent, clientName: string): { subject: string; text: string } {
  if (event.event === 'device.offline') return offlineMail(event, clientName);
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

const duration = (seconds: number) =>
  seconds % 3600 === 0 ? `${seconds / 3600} h` : seconds % 60 === 0 ? `${seconds / 60} min` : `${seconds} s`;

function offlineMail(event: PublicEvent, clientName: string): { subject: string; text: string } {
  const d = event.data as { device_id: string; name: string; offline_since: string; threshold_seconds: number };
  const phone = d.name || d.device_id;
  return {
    subject: `Phone ${phone}: offline for more than ${duration(d.threshold_seconds)}`,
    text: [
      `Hello${clientName ? ` ${clientName}` : ''},`,
      '',
      `Your phone ${phone} has been offline since ${d.offline_since}, longer than the ${duration(d.threshold_seconds)}`,
      'you chose. It sends none of your SMS meanwhile: check that it is on, has a network, and that',
      'the app still runs. Its messages that may go to another of your phones already did, once it',
      'was offline past your failover delay.',
      '',
      'You get this warning once until the phone connects again. The delay, or no warning at all,',
      'is set in the dashboard (Phones, settings for all phones).',
      '',
      `Phone: ${d.device_id}`,
      `Event: ${event.event_id}`,
    ].join('\n'),
  };
}
