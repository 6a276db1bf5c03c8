import { checkWebhookUrl, classifyAddress, MAX_WEBHOOK_URL_LENGTH, parseWebhookUrl, type Resolver } from '../src';

// Each refused range with its first and last address, and the public addresses just outside it.
const RANGES: [range: string, reason: string, first: string, last: string, outside: string[]][] = [
  ['0.0.0.0/8', 'unspecified', '0.0.0.0', '0.255.255.255', ['1.0.0.0']],
  ['10.0.0.0/8', 'private', '10.0.0.0', '10.255.255.255', ['9.255.255.255', '11.0.0.0']],
  ['100.64.0.0/10', 'cgnat', '100.64.0.0', '100.127.255.255', ['100.63.255.255', '100.128.0.0']],
  ['127.0.0.0/8', 'loopback', '127.0.0.0', '127.255.255.255', ['126.255.255.255', '128.0.0.0']],
  ['169.254.0.0/16', 'link-local', '169.254.0.0', '169.254.255.255', ['169.253.255.255', '169.255.0.0']],
  ['172.16.0.0/12', 'private', '172.16.0.0', '172.31.255.255', ['172.15.255.255', '172.32.0.0']],
  ['192.0.0.0/24', 'reserved', '192.0.0.0', '192.0.0.255', ['191.255.255.255']],
  ['192.0.2.0/24', 'documentation', '192.0.2.0', '192.0.2.255', ['192.0.1.255', '192.0.3.0']],
  ['192.88.99.0/24', '6to4', '192.88.99.0', '192.88.99.255', ['192.88.98.255', '192.88.100.0']],
  ['192.168.0.0/16', 'private', '192.168.0.0', '192.168.255.255', ['192.167.255.255', '192.169.0.0']],
  ['198.18.0.0/15', 'benchmarking', '198.18.0.0', '198.19.255.255', ['198.17.255.255', '198.20.0.0']],
  ['198.51.100.0/24', 'documentation', '198.51.100.0', '198.51.100.255', ['198.51.99.255', '198.51.101.0']],
  ['203.0.113.0/24', 'documentation', '203.0.113.0', '203.0.113.255', ['203.0.112.255', '203.0.114.0']],
  ['224.0.0.0/4', 'multicast', '224.0.0.0', '239.255.255.255', ['223.255.255.255']],
  ['240.0.0.0/4', 'reserved', '240.0.0.0', '255.255.255.254', []],
  ['255.255.255.255/32', 'broadcast', '255.255.255.255', '255.255.255.255', []],
  ['::/128', 'unspecified', '::', '::', []],
  ['::1/128', 'loopback', '::1', '::1', []],
  ['::/96', 'ipv4-compatible', '::2', '::ffff:ffff', []],
  ['::ffff:0:0/96', 'ipv4-mapped', '::ffff:0.0.0.0', '::ffff:255.255.255.255', []],
  ['64:ff9b::/96', 'nat64', '64:ff9b::', '64:ff9b::ffff:ffff', []],
  ['64:ff9b:1::/48', 'nat64', '64:ff9b:1::', '64:ff9b:1:ffff:ffff:ffff:ffff:ffff', []],
  ['fe80::/10', 'link-local', 'fe80::', 'febf:ffff:ffff:ffff:ffff:ffff:ffff:ffff', []],
  ['fc00::/7', 'unique-local', 'fc00::', 'fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', []],
  ['ff00::/8', 'multicast', 'ff00::', 'ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', []],
  ['2001::/32', 'teredo', '2001::', '2001:0:ffff:ffff:ffff:ffff:ffff:ffff', []],
  ['2001:2::/48', 'benchmarking', '2001:2::', '2001:2:0:ffff:ffff:ffff:ffff:ffff', []],
  ['2001::/23', 'reserved', '2001:1::', '2001:1ff:ffff:ffff:ffff:ffff:ffff:ffff', ['2001:200::']],
  [
    '2001:db8::/32',
    'documentation',
    '2001:db8::',
    '2001:db8:ffff:ffff:ffff:ffff:ffff:ffff',
    ['2001:db7:ffff:ffff:ffff:ffff:ffff:ffff', '2001:db9::'],
  ],
  ['2002::/16', '6to4', '2002::', '2002:ffff:ffff:ffff:ffff:ffff:ffff:ffff', ['2003::']],
  [
    '3fff::/20',
    'documentation',
    '3fff::',
    '3fff:fff:ffff:ffff:ffff:ffff:ffff:ffff',
    ['3ffe:ffff:ffff:ffff:ffff:ffff:ffff:ffff', '3fff:1000::'],
  ],
  // What lies outside 2000::/3: discard-only, the old site-local block, SRv6, SIIT-translated addresses.
  ['outside 2000::/3', 'not global unicast', '100::', 'fec0::1', ['2000::', '3fff:1000::']],
  ['outside 2000::/3', 'not global unicast', '5f00::1', '::ffff:0:7f00:1', []],
];

describe('classifyAddress', () => {
  it.each(RANGES)(
    'when an address of %s is classified, then it is refused as %s and its neighbours are public',
    (_range, reason, first, last, outside) => {
      expect(classifyAddress(first)).toEqual({ public: false, reason });
      expect(classifyAddress(last)).toEqual({ public: false, reason });
      for (const address of outside) expect(classifyAddress(address)).toEqual({ public: true });
    },
  );

  it.each(['8.8.8.8', '1.1.1.1', '93.184.216.34', '172.32.0.1', '100.128.0.1', '2606:4700:4700::1111', '2a00:1450:4007:80e::200e'])(
    'when the public address %s is classified, then it is public',
    (address) => expect(classifyAddress(address)).toEqual({ public: true }),
  );

  it('when an address comes in brackets or with a zone, then it is classified the same', () => {
    expect(classifyAddress('[::1]')).toEqual({ public: false, reason: 'loopback' });
    expect(classifyAddress('fe80::1%eth0')).toEqual({ public: false, reason: 'link-local' });
  });

  it.each(['', 'localhost', '127.1', '0x7f000001', '2130706433', '1.2.3.4.5', '::1::', '[::1'])(
    'when %j is classified, then it is not an IP address',
    (text) => {
      expect(classifyAddress(text)).toEqual({ public: false, reason: 'not an IP address' });
    },
  );
});

describe('parseWebhookUrl', () => {
  it.each([
    'https://2130706433/',
    'https://017700000001/',
    'https://0177.0.0.1/',
    'https://0x7f.0.0.1/',
    'https://0x7f000001/',
    'https://127.1/',
    'https://0x7f.1/',
    'https://%31%32%37.0.0.1/',
    'https://１２７.０.０.１/',
    'https://127.0.0.1./',
    ' https://127.0.0.1/ ',
  ])('when the host of %j is an IPv4 address in another form, then WHATWG parsing gives 127.0.0.1, which is checked', (url) => {
    expect(parseWebhookUrl(url, { allowPrivate: true })).toMatchObject({
      ok: true,
      target: { hostname: '127.0.0.1', literalAddress: '127.0.0.1' },
    });
    expect(parseWebhookUrl(url, { allowPrivate: false })).toEqual({ ok: false, reason: 'blocked address 127.0.0.1 (loopback)' });
  });

  it('when an IPv6 host embeds an IPv4 address, then the normalised address is the one classified', () => {
    expect(parseWebhookUrl('https://[::ffff:127.0.0.1]/', { allowPrivate: true })).toMatchObject({
      ok: true,
      target: { hostname: '::ffff:7f00:1', literalAddress: '::ffff:7f00:1' },
    });
    expect(parseWebhookUrl('https://[0:0:0:0:0:ffff:7f00:1]/', { allowPrivate: false })).toEqual({
      ok: false,
      reason: 'blocked address ::ffff:7f00:1 (ipv4-mapped)',
    });
  });

  it('when the URL is a public name with a port, a path and a query, then it is kept as the WHATWG parser wrote it', () => {
    const parsed = parseWebhookUrl('HTTPS://Hooks.Example.COM:8443/a/b?x=1#frag', { allowPrivate: false });
    expect(parsed).toMatchObject({ ok: true, target: { hostname: 'hooks.example.com' } });
    if (!parsed.ok) throw new Error(parsed.reason);
    expect(parsed.target.literalAddress).toBeUndefined();
    expect(parsed.target.url.href).toBe('https://hooks.example.com:8443/a/b?x=1#frag');
  });

  it.each([
    ['http://hooks.example.com/', 'the URL must be HTTPS'],
    ['ftp://hooks.example.com/', 'the URL must be HTTPS'],
    ['https://user:pw@hooks.example.com/', 'credentials in the URL are not allowed'],
    ['https://user@hooks.example.com/', 'credentials in the URL are not allowed'],
    ['https://:pw@hooks.example.com/', 'credentials in the URL are not allowed'],
    ['not a url', 'not a valid URL'],
    ['https://4294967296/', 'not a valid URL'],
    ['', 'missing URL'],
    [`https://hooks.example.com/${'a'.repeat(MAX_WEBHOOK_URL_LENGTH)}`, 'URL longer than 2048 characters'],
    ['https://1.2.3.4.5.6/', 'not a valid URL'],
  ])('when the URL is %j, then it is refused whatever the address policy: %s', (url, reason) => {
    expect(parseWebhookUrl(url, { allowPrivate: false })).toEqual({ ok: false, reason });
    expect(parseWebhookUrl(url, { allowPrivate: true })).toEqual({ ok: false, reason });
  });

  it('when a URL is exactly 2048 characters long, then its length is accepted', () => {
    const url = 'https://hooks.example.com/';
    expect(parseWebhookUrl(url + 'a'.repeat(MAX_WEBHOOK_URL_LENGTH - url.length), { allowPrivate: false }).ok).toBe(true);
  });

  it.each([
    ['https://localhost/', 'blocked host localhost (loopback)'],
    ['https://localhost.:8443/', 'blocked host localhost. (loopback)'],
    ['https://api.localhost/', 'blocked host api.localhost (loopback)'],
    ['https://metadata/computeMetadata/v1/', 'blocked host metadata (single-label name)'],
    ['https://redis./', 'blocked host redis. (single-label name)'],
  ])('when the host of %s is a local name, then it is refused without DNS unless private addresses are allowed', (url, reason) => {
    expect(parseWebhookUrl(url, { allowPrivate: false })).toEqual({ ok: false, reason });
    expect(parseWebhookUrl(url, { allowPrivate: true }).ok).toBe(true);
  });
});

describe('checkWebhookUrl', () => {
  const resolver: Resolver = async (host) => {
    const table: Record<string, string[]> = {
      'hooks.example.com': ['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946'],
      'internal.example.com': ['10.1.2.3'],
    };
    if (!table[host]) throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
    return table[host];
  };

  it('when the address or every address of the name is public, then the URL is allowed', async () => {
    await expect(checkWebhookUrl('https://93.184.216.34/hook', { allowPrivate: false, resolver })).resolves.toBeUndefined();
    await expect(checkWebhookUrl('https://[2606:4700:4700::1111]:8443/', { allowPrivate: false, resolver })).resolves.toBeUndefined();
    await expect(checkWebhookUrl('https://hooks.example.com:8443/hook?x=1', { allowPrivate: false, resolver })).resolves.toBeUndefined();
  });

  it('when private addresses are allowed (development), then a private name passes but plain HTTP and credentials still do not', async () => {
    await expect(checkWebhookUrl('https://internal.example.com/', { allowPrivate: true, resolver })).resolves.toBeUndefined();
    await expect(checkWebhookUrl('https://127.0.0.1:9443/hook', { allowPrivate: true, resolver })).resolves.toBeUndefined();
    await expect(checkWebhookUrl('http://127.0.0.1/', { allowPrivate: true, resolver })).resolves.toBe('the URL must be HTTPS');
    await expect(checkWebhookUrl('https://a:b@127.0.0.1/', { allowPrivate: true, resolver })).resolves.toBe(
      'credentials in the URL are not allowed',
    );
  });

  it('when the name does not resolve, then the reason is the DNS error code', async () => {
    await expect(checkWebhookUrl('https://nowhere.example.com/', { allowPrivate: false, resolver })).resolves.toBe('DNS: ENOTFOUND');
  });

  it('when DNS does not answer within timeoutMs, then the URL is refused as a DNS timeout', async () => {
    const silent: Resolver = () => new Promise(() => undefined);
    const started = Date.now();
    await expect(checkWebhookUrl('https://hooks.example.com/', { allowPrivate: false, resolver: silent, timeoutMs: 100 })).resolves.toBe(
      'DNS: timeout',
    );
    expect(Date.now() - started).toBeLessThan(1000);
  });
});
