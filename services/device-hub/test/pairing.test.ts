import { pacingDelay } from '../src/domain/dispatch-timing';
import { newDevicePassword, newPairingCode, normalizeDevicePassword, normalizePairingCode, pairingAddressKey } from '../src/domain/pairing';

const UNAMBIGUOUS = '[2-9A-HJKMNP-Z]';

describe('device pairing', () => {
  it('when a device password is made, then it reads XXXX-XXXX-XXXX-XXXX without ambiguous characters', () => {
    const passwords = Array.from({ length: 300 }, () => newDevicePassword());

    for (const password of passwords) {
      expect(password.plain).toMatch(new RegExp(`^${UNAMBIGUOUS}{4}-${UNAMBIGUOUS}{4}-${UNAMBIGUOUS}{4}-${UNAMBIGUOUS}{4}$`));
      expect(password.plain).not.toMatch(/[01OIL]/);
      expect(password.lookup).toBe(password.plain.slice(0, 4));
      expect(password.normalized).toBe(password.plain.replace(/-/g, ''));
    }
    expect(new Set(passwords.map((p) => p.plain)).size).toBe(passwords.length);
    const used = new Set(passwords.flatMap((p) => Array.from(p.normalized)));
    expect(used.size).toBeGreaterThan(25);
  });

  it('when a password is typed back exactly, then it normalises to what was issued', () => {
    const password = newDevicePassword();
    expect(normalizeDevicePassword(password.plain)).toEqual({ lookup: password.lookup, normalized: password.normalized });
  });

  it('when a password is typed in lower case, with spaces or without dashes, then it still matches', () => {
    const password = newDevicePassword();
    const groups = password.plain.split('-');
    const expected = { lookup: password.lookup, normalized: password.normalized };

    expect(normalizeDevicePassword(password.plain.toLowerCase())).toEqual(expected);
    expect(normalizeDevicePassword(groups.join(' '))).toEqual(expected);
    expect(normalizeDevicePassword(`  ${groups.join(' - ').toLowerCase()}\t`)).toEqual(expected);
    expect(normalizeDevicePassword(groups.join(''))).toEqual(expected);
  });

  it.each([
    ['too short', 'ABCD-EFGH-JKMN'],
    ['too long', 'ABCD-EFGH-JKMN-PQRS-T'],
    ['holding punctuation', 'ABCD-EFGH-JKMN-PQR!'],
    ['holding accents', 'ÀBCD-EFGH-JKMN-PQRS'],
    ['empty', ''],
  ])('when a password is %s, then it is refused', (_label, input) => {
    expect(normalizeDevicePassword(input)).toBeUndefined();
  });

  it('when a pairing code is made, then it has 34 unambiguous characters, its first 8 find it, and typing it loosely still matches', () => {
    const code = newPairingCode();

    expect(code.plain).toMatch(new RegExp(`^${UNAMBIGUOUS}{34}$`));
    expect(code.lookup).toBe(code.plain.slice(0, 8));
    expect(normalizePairingCode(`${code.plain.slice(0, 4).toLowerCase()}-${code.plain.slice(4)} `)).toEqual({
      lookup: code.lookup,
      normalized: code.plain,
    });
    expect(newPairingCode().plain).not.toBe(code.plain);
  });

  it.each([
    ['the old 8-character form', 'K7M2Q9XA'],
    ['one character short', 'K7M2Q9XAK7M2Q9XAK7M2Q9XAK7M2Q9XAK'],
    ['holding an ambiguous letter', 'K7M2Q9XAK7M2Q9XAK7M2Q9XAK7M2Q9XAKO'],
    ['empty', ''],
  ])('when a pairing code is %s, then it is refused', (_label, input) => {
    expect(normalizePairingCode(input)).toBeUndefined();
  });

  it.each([
    ['an IPv4 address', '203.0.113.7', '203.0.113.7'],
    ['an IPv4-mapped IPv6 address', '::ffff:203.0.113.7', '203.0.113.7'],
    ['an IPv6 address', '2001:db8:85a3:12:8a2e:370:7334:1', '2001:db8:85a3:12::/64'],
    ['another IPv6 address of the same /64', '2001:0db8:85a3:0012::9', '2001:db8:85a3:12::/64'],
    ['a shortened IPv6 address', '2001:db8::1', '2001:db8:0:0::/64'],
    ['the IPv6 loopback', '::1', '0:0:0:0::/64'],
    ['missing', undefined, 'unknown'],
  ])('when pairing attempts come from %s, then they are counted under its address or /64', (_label, address, key) => {
    expect(pairingAddressKey(address)).toBe(key);
  });

  it('when a pacing delay is drawn, then it stays within [min, max] and spreads over the range', () => {
    const delays = Array.from({ length: 2000 }, () => pacingDelay(2000, 3000));

    for (const delay of delays) {
      expect(Number.isInteger(delay)).toBe(true);
      expect(delay).toBeGreaterThanOrEqual(2000);
      expect(delay).toBeLessThanOrEqual(3000);
    }
    expect(Math.min(...delays)).toBeLessThan(2100);
    expect(Math.max(...delays)).toBeGreaterThan(2900);
  });

  it('when the random source is at its ends, then the delay is exactly min or max', () => {
    expect(pacingDelay(2000, 3000, () => 0)).toBe(2000);
    expect(pacingDelay(2000, 3000, () => 0.5)).toBe(2500);
    expect(pacingDelay(2000, 3000, () => 0.9999999)).toBe(3000);
  });

  it('when max is below min or equal to it, then the delay is min', () => {
    expect(pacingDelay(2500, 1000, () => 0.7)).toBe(2500);
    expect(pacingDelay(0, 0)).toBe(0);
  });
});
