import { AddressRanges, canonicalRange, keyUsageKey, msToNextUtcDay, plainAddress } from '../src/key-limits';

describe('key limits', () => {
  it('when ranges are written in any accepted form, then their canonical form clears the host bits; anything else is refused', () => {
    expect(canonicalRange('10.1.2.3/8')).toBe('10.0.0.0/8');
    expect(canonicalRange(' 192.0.2.7 ')).toBe('192.0.2.7/32');
    expect(canonicalRange('2001:DB8:0:0:1::/64')).toBe('2001:db8::/64');
    expect(canonicalRange('::1')).toBe('::1/128');
    expect(canonicalRange('::ffff:127.0.0.1/32')).toBe('127.0.0.1/32');
    expect(canonicalRange('0.0.0.0/0')).toBe('0.0.0.0/0');
    for (const bad of ['', '10.0.0.0/33', '10.0.0/8', '2001:db8::/129', 'example.com', '10.0.0.0/8/1', '10.0.0.0/-1', '10.0.0.0/ 8']) {
      expect({ bad, range: canonicalRange(bad) }).toEqual({ bad, range: undefined });
    }
  });

  it('when addresses are tested against ranges, then IPv4, IPv4-mapped IPv6 and IPv6 match their ranges only, and an unknown address never does', () => {
    const ranges = new AddressRanges(['127.0.0.0/8', '2001:db8::/32']);

    expect(ranges.allows('127.0.0.1')).toBe(true);
    expect(ranges.allows('::ffff:127.0.0.1')).toBe(true);
    expect(ranges.allows('2001:db8:1::5')).toBe(true);
    expect(ranges.allows('10.0.0.1')).toBe(false);
    expect(ranges.allows('::1')).toBe(false);
    expect(ranges.allows(undefined)).toBe(false);
    expect(ranges.allows('not an address')).toBe(false);
    expect(plainAddress('::FFFF:10.0.0.1')).toBe('10.0.0.1');
  });

  it('when a day is counted, then its key names the key and the UTC day, and the next day starts at UTC midnight', () => {
    expect(keyUsageKey('key_1', '2026-11-28')).toBe('key-usage:key_1:2026-11-28');
    expect(msToNextUtcDay(Date.parse('2026-11-28T23:59:59.000Z'))).toBe(1000);
    expect(msToNextUtcDay(Date.parse('2026-11-28T00:00:00.000Z'))).toBe(24 * 3600 * 1000);
  });
});
