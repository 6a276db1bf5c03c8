import { BlockList, isIP } from 'node:net';

/** Why an address may not receive webhooks. */
export type AddressRefusal =
  | 'unspecified'
  | 'private'
  | 'loopback'
  | 'link-local'
  | 'cgnat'
  | 'multicast'
  | 'broadcast'
  | 'reserved'
  | 'documentation'
  | 'benchmarking'
  | 'unique-local'
  | 'ipv4-mapped'
  | 'ipv4-compatible'
  | 'nat64'
  | '6to4'
  | 'teredo'
  | 'not global unicast'
  | 'not an IP address';

const V4: [string, number, AddressRefusal][] = [
  ['0.0.0.0', 8, 'unspecified'],
  ['10.0.0.0', 8, 'private'],
  ['100.64.0.0', 10, 'cgnat'],
  ['127.0.0.0', 8, 'loopback'],
  ['169.254.0.0', 16, 'link-local'],
  ['172.16.0.0', 12, 'private'],
  ['192.0.0.0', 24, 'reserved'],
  ['192.0.2.0', 24, 'documentation'],
  ['192.88.99.0', 24, '6to4'],
  ['192.168.0.0', 16, 'private'],
  ['198.18.0.0', 15, 'benchmarking'],
  ['198.51.100.0', 24, 'documentation'],
  ['203.0.113.0', 24, 'documentation'],
  ['224.0.0.0', 4, 'multicast'],
  ['255.255.255.255', 32, 'broadcast'],
  ['240.0.0.0', 4, 'reserved'],
];

// Checked in order: the first that matches names the refusal. Everything
// outside 2000::/3 (global unicast) is refused at the end.
const V6: [string, number, AddressRefusal][] = [
  ['::', 128, 'unspecified'],
  ['::1', 128, 'loopback'],
  ['::ffff:0:0', 96, 'ipv4-mapped'],
  ['::', 96, 'ipv4-compatible'],
  ['64:ff9b::', 96, 'nat64'],
  ['64:ff9b:1::', 48, 'nat64'],
  ['fe80::', 10, 'link-local'],
  ['fc00::', 7, 'unique-local'],
  ['ff00::', 8, 'multicast'],
  ['2001::', 32, 'teredo'],
  ['2001:2::', 48, 'benchmarking'],
  ['2001:db8::', 32, 'documentation'],
  ['2001::', 23, 'reserved'],
  ['2002::', 16, '6to4'],
  ['3fff::', 20, 'documentation'],
];

const rules = (list: [string, number, AddressRefusal][], type: 'ipv4' | 'ipv6') =>
  list.map(([net, prefix, reason]) => {
    const block = new BlockList();
    block.addSubnet(net, prefix, type);
    return { block, reason };
  });

const V4_RULES = rules(V4, 'ipv4');
const V6_RULES = rules(V6, 'ipv6');
const GLOBAL_UNICAST_V6 = new BlockList();
GLOBAL_UNICAST_V6.addSubnet('2000::', 3, 'ipv6');

/**
 * Whether an IP address is a public unicast destination; if not, why. IPv6
 * forms that carry an IPv4 address (mapped, compatible, NAT64, 6to4, Teredo)
 * are refused outright: what they lead to cannot be checked here.
 */
export function classifyAddress(address: string): { public: true } | { public: false; reason: AddressRefusal } {
  const ip = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  const family = isIP(ip);
  if (family === 4) {
    const hit = V4_RULES.find((r) => r.block.check(ip, 'ipv4'));
    return hit ? { public: false, reason: hit.reason } : { public: true };
  }
  if (family === 6) {
    const hit = V6_RULES.find((r) => r.block.check(ip, 'ipv6'));
    if (hit) return { public: false, reason: hit.reason };
    return GLOBAL_UNICAST_V6.check(ip, 'ipv6') ? { public: true } : { public: false, reason: 'not global unicast' };
  }
  return { public: false, reason: 'not an IP address' };
}

/**
 * Names that lead inside without any DNS answer to check: `localhost` and
 * `*.localhost` (RFC 6761) are answered by the machine itself, and a name
 * without a dot is completed with the local search domains (`https://metadata/`,
 * `https://redis/`). Refusing them here also lets a check without DNS (the
 * gateway's) catch them.
 */
function localName(hostname: string): 'loopback' | 'single-label name' | undefined {
  const name = hostname.endsWith('.') ? hostname.slice(0, -1) : hostname;
  if (name === 'localhost' || name.endsWith('.localhost')) return 'loopback';
  if (!name.includes('.')) return 'single-label name';
  return undefined;
}

export interface WebhookTarget {
  url: URL;
  /** The host name without IPv6 brackets. */
  hostname: string;
  /** Set when the host is an IP address (WHATWG URL parsing has already turned `2130706433`, `0x7f.1` or `0177.0.0.1` into dotted form). */
  literalAddress?: string;
}

export const MAX_WEBHOOK_URL_LENGTH = 2048;

/**
 * Checks what can be checked of a webhook URL without the network: HTTPS,
 * no credentials, a host, and (unless `allowPrivate`) a public address for
 * an IP host and no local name. A host name still needs `resolvePublic`
 * before use.
 */
export function parseWebhookUrl(
  text: string,
  options: { allowPrivate: boolean },
): { ok: true; target: WebhookTarget } | { ok: false; reason: string } {
  if (typeof text !== 'string' || text.length === 0) return { ok: false, reason: 'missing URL' };
  if (text.length > MAX_WEBHOOK_URL_LENGTH) return { ok: false, reason: `URL longer than ${MAX_WEBHOOK_URL_LENGTH} characters` };
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { ok: false, reason: 'not a valid URL' };
  }
  if (url.protocol !== 'https:') return { ok: false, reason: 'the URL must be HTTPS' };
  if (url.username || url.password) return { ok: false, reason: 'credentials in the URL are not allowed' };
  const hostname = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  if (!hostname) return { ok: false, reason: 'the URL has no host' };
  if (isIP(hostname) === 0) {
    // A name that is all digits, dots and hex markers would be an IP in another parser's eyes.
    if (/^[0-9.]+$/.test(hostname) || /^0x/i.test(hostname)) return { ok: false, reason: 'ambiguous numeric host' };
    const local = options.allowPrivate ? undefined : localName(hostname);
    if (local) return { ok: false, reason: `blocked host ${hostname} (${local})` };
    return { ok: true, target: { url, hostname } };
  }
  if (!options.allowPrivate) {
    const verdict = classifyAddress(hostname);
    if (!verdict.public) return { ok: false, reason: `blocked address ${hostname} (${verdict.reason})` };
  }
  return { ok: true, target: { url, hostname, literalAddress: hostname } };
}
