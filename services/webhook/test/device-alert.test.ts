import type { PublicEvent } from '@smsgw/platform';
import { deviceAlertMail } from '../src/domain/device-alert';

/** The owner's e-mail of a quarantined SIM, without I/O. */
describe('deviceAlertMail', () => {
  const event: PublicEvent = {
    event: 'device.degraded',
    event_id: 'evt_1',
    timestamp: '2026-11-29T01:00:00.000Z',
    data: {
      device_id: 'device_1',
      name: 'Shop phone',
      sim: 2,
      reason: 'failure_ratio',
      recent_results: { sent: 4, limit_exceeded: 6 },
      probe_after: '2026-11-29T01:15:00.000Z',
    },
    routing: { client_id: 'client_1', mode: 'live' },
  };

  it('when a SIM is quarantined, then the mail names the phone, the SIM, why, its results by cause and the probe time', () => {
    const { subject, text } = deviceAlertMail(event, 'Boutique');
    expect(subject).toBe('SIM 2 of the phone Shop phone is quarantined');
    expect(text).toContain('Hello Boutique,');
    expect(text).toContain('too many of its recent messages failed');
    expect(text).toContain("  - Android's SMS limit reached: 6");
    expect(text).toContain('  - sent: 4');
    expect(text).toContain('After 2026-11-29T01:15:00.000Z one message is tried on it');
    expect(text).toContain('Event: evt_1');
  });
});
