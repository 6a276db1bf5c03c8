import type { PublicEvent } from '@smsgw/platform';
import { phoneAlertMail } from '../src/domain/phone-alert';
import { OPT_IN_KINDS, parseKinds } from '../src/domain/event-kinds';

const event = (kind: 'device.offline' | 'device.battery_low', data: Record<string, unknown>): PublicEvent => ({
  event: kind,
  event_id: 'evt_1',
  timestamp: '2026-11-29T12:00:00.000Z',
  data: { device_id: 'device_1', client_id: 'client_1', name: 'Shop phone', ...data },
  routing: { client_id: 'client_1', mode: 'live' },
});

describe("the owner's phone warnings", () => {
  it('when a phone stayed offline past the delay, then the mail names the phone, since when and the delay in words', () => {
    const mail = phoneAlertMail(event('device.offline', { offline_since: '2026-11-29T11:20:00.000Z', threshold_seconds: 1800 }), 'Acme');
    expect(mail.subject).toBe('Phone Shop phone: offline for more than 30 min');
    expect(mail.text).toContain('Hello Acme,');
    expect(mail.text).toContain('offline since 2026-11-29T11:20:00.000Z');
    expect(mail.text).toContain('Phone: device_1');
    expect(phoneAlertMail(event('device.offline', { offline_since: 'x', threshold_seconds: 7200 }), '').subject).toContain('2 h');
  });

  it('when a low battery is told, then the mail stays the battery warning', () => {
    expect(phoneAlertMail(event('device.battery_low', { battery: 12, at: 'x' }), '').subject).toBe(
      'Phone Shop phone: battery 12 %, not charging',
    );
  });

  it('when an endpoint names device.offline, then it is a known kind, and opt-in', () => {
    expect(parseKinds(['device.offline'])).toEqual(['device.offline']);
    expect(OPT_IN_KINDS).toContain('device.offline');
  });
});
