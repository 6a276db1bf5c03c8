import { FLEET_WAKE_MIN, fleetWakeQuota } from '../src/sessions/session-registry';

const quota = (payload: string) => fleetWakeQuota(new TextEncoder().encode(payload));

describe('how many idle phones of a client a fleet wake-up wakes on one replica', () => {
  it.each([
    ['1', FLEET_WAKE_MIN],
    ['4', FLEET_WAKE_MIN],
    ['5', 10],
    ['500', 1000],
  ])('when it says %s messages were opened, then it wakes %i', (payload, expected) => {
    expect(quota(payload)).toBe(expected);
  });

  it.each(['', '0', '-3', '2.5', 'many'])(
    'when it says %j, then it wakes every idle phone (nothing is left waiting for a sweep)',
    (payload) => {
      expect(quota(payload)).toBe(Infinity);
    },
  );
});
