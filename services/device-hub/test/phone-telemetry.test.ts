import { logLinesOf, settingsFrame } from '../src/domain/phone-settings';
import { batteryBand, batteryLow, batteryRecovered, sampleSlot, telemetryOf } from '../src/domain/telemetry';
import { NO_LIMITS } from '../src/domain/limits';

describe('protocol 6 frames read by the hub', () => {
  it('when a telemetry frame has values out of range or unknown names, then they are left out, not the frame', () => {
    const t = telemetryOf({
      battery: 140,
      charging: true,
      sims: [{ slot: 2, level: 3, dbm: -97, network: 'lte' }, { slot: 1, level: 9, network: 'satellite' }, { slot: 2 }, 'x', { slot: 12 }],
      storage_free_mb: 512.4,
      app_version: '1.2.0\u0000',
      android_version: 'x'.repeat(100),
      risks: ['battery_optimized', 'martian'],
    });
    expect(t).toEqual({
      charging: true,
      sims: [
        { slot: 1, network: 'unknown' },
        { slot: 2, level: 3, dbm: -97, network: 'lte' },
      ],
      storageFreeMb: 512,
      appVersion: '1.2.0',
      androidVersion: 'x'.repeat(40),
      risks: ['battery_optimized'],
    });
  });

  it('when the battery is at 15 % or less and not charging, then it is low; the episode ends once charging or above 20 %', () => {
    expect(batteryLow({ battery: 15, charging: false })).toBe(true);
    expect(batteryLow({ battery: 15, charging: true })).toBe(false);
    expect(batteryLow({ battery: undefined, charging: false })).toBe(false);
    expect(batteryRecovered({ battery: 18, charging: false })).toBe(false);
    expect(batteryRecovered({ battery: 21, charging: false })).toBe(true);
    expect(batteryRecovered({ battery: 5, charging: true })).toBe(true);
    expect([batteryBand(undefined), batteryBand(10), batteryBand(50), batteryBand(51)]).toEqual(['unknown', 'low', 'medium', 'high']);
    expect(sampleSlot(Date.UTC(2026, 0, 1, 10, 7, 59))).toBe(Date.UTC(2026, 0, 1, 10, 5));
  });

  it('when the same settings are pushed twice, then they have the same version; another limit, another version', () => {
    const rule = { rule: 'round_robin' as const, defaultSim: 1 };
    const a = settingsFrame({ limits: NO_LIMITS, simRule: rule });
    expect(a).toMatchObject({
      type: 'settings',
      limits: { per_minute: 0, time_zone: '' },
      sim_rule: { rule: 'round_robin', default_sim: 1 },
    });
    expect(settingsFrame({ limits: NO_LIMITS, simRule: rule }).version).toBe(a.version);
    expect(settingsFrame({ limits: { ...NO_LIMITS, perMinute: 5 }, simRule: rule }).version).not.toBe(a.version);
  });

  it('when a log frame holds numbers, too many or too long lines, then the hub masks and bounds them', () => {
    const lines = logLinesOf([
      ...Array.from({ length: 600 }, (_, i) => `line ${i}`),
      'from +33612345678 on 2026-11-29',
      7,
      'y'.repeat(900),
    ]);
    expect(lines).toHaveLength(499);
    expect(lines).toContain('from [number] on 2026-11-29');
    expect(lines[lines.length - 1]).toHaveLength(500);
    expect(logLinesOf('nope')).toEqual([]);
  });
});
