import { DEFAULT_TRUSTED_PROXIES, requestOrigin, TrustedProxies } from '../src/net/forwarded';

const ingress = new TrustedProxies(DEFAULT_TRUSTED_PROXIES);

describe('requestOrigin', () => {
  it('when the peer is not a trusted proxy, then it is the client and its forwarded headers are ignored', () => {
    expect(requestOrigin('198.51.100.9', { 'x-forwarded-for': '203.0.113.7', 'x-forwarded-proto': 'https' }, ingress)).toEqual({
      ip: '198.51.100.9',
      https: false,
      clientKnown: true,
    });
  });

  it('when a trusted proxy forwards, then the client is the rightmost address that is not a trusted proxy', () => {
    const origin = (xff: string) => requestOrigin('10.0.0.5', { 'x-forwarded-for': xff, 'x-forwarded-proto': 'https' }, ingress);
    expect(origin('203.0.113.7')).toEqual({ ip: '203.0.113.7', https: true, clientKnown: true });
    // What the client wrote itself comes first and is skipped; a load balancer inside the trusted ranges is skipped too.
    expect(origin('192.0.2.66, 203.0.113.7, 10.1.2.3').ip).toBe('203.0.113.7');
    expect(origin('::ffff:203.0.113.7').ip).toBe('203.0.113.7');
    expect(origin('2001:db8::1').ip).toBe('2001:db8::1');
  });

  it('when X-Forwarded-Proto has several values, then the last one (set by the nearest proxy) decides', () => {
    expect(requestOrigin('127.0.0.1', { 'x-forwarded-proto': 'https, http' }, ingress).https).toBe(false);
    expect(requestOrigin('127.0.0.1', { 'x-forwarded-proto': ['http', 'HTTPS'] }, ingress).https).toBe(true);
  });

  it('when a trusted proxy says nothing of its client, then the client is unknown (limits per address must not apply)', () => {
    expect(requestOrigin('::ffff:10.0.0.5', {}, ingress)).toEqual({ ip: '10.0.0.5', https: false, clientKnown: false });
    expect(requestOrigin('10.0.0.5', { 'x-forwarded-for': '10.0.0.9' }, ingress).clientKnown).toBe(false);
  });

  it('when X-Forwarded-For holds something that is not an address, then nothing left of it is believed', () => {
    expect(requestOrigin('10.0.0.5', { 'x-forwarded-for': '203.0.113.7, unknown, 10.0.0.8' }, ingress)).toMatchObject({
      ip: '10.0.0.8',
      clientKnown: false,
    });
  });
});

describe('TrustedProxies', () => {
  it('when given addresses and ranges, then it matches exactly those', () => {
    const trusted = TrustedProxies.parse(' 192.0.2.7, 10.10.0.0/16 ,fd00::/8');
    expect(['192.0.2.7', '10.10.200.1', 'fd00::1', '::ffff:10.10.0.1'].map((a) => trusted.has(a))).toEqual([true, true, true, true]);
    expect(['192.0.2.8', '10.11.0.1', 'fe80::1', undefined].map((a) => trusted.has(a))).toEqual([false, false, false, false]);
    expect(TrustedProxies.parse('').has('127.0.0.1')).toBe(false);
  });

  it('when an entry is not an address or a range, then it is refused with its text', () => {
    expect(() => TrustedProxies.parse('10.0.0.0/33')).toThrow('"10.0.0.0/33" is not an IP address or a CIDR range');
    expect(() => TrustedProxies.parse('ingress-nginx')).toThrow('"ingress-nginx"');
  });
});
