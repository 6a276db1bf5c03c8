import type { IncomingMessage } from 'node:http';
import net from 'node:net';

/**
 * Where a request behind a TLS-terminating proxy really comes from, read the same way by the
 * gateway, the dashboard and the hub. `X-Forwarded-*` headers are believed only when the
 * connection comes from a trusted proxy (TRUSTED_PROXIES); anything else could write them itself.
 */
export interface RequestOrigin {
  /** The client's address: the first address of `X-Forwarded-For`, read from the right, that is not a trusted proxy. */
  ip: string | undefined;
  /** The nearest trusted proxy received the request over HTTPS (its `X-Forwarded-Proto` says `https`). */
  https: boolean;
  /**
   * False when the address is a trusted proxy's own: a load balancer that hides client addresses
   * (no `X-Forwarded-For`). Limits per address must then not apply: they would lock every client
   * out at once because of one.
   */
  clientKnown: boolean;
}

/** Cluster-internal and loopback ranges: where an Ingress controller or a local proxy connects from. */
export const DEFAULT_TRUSTED_PROXIES = ['127.0.0.0/8', '::1/128', '10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', 'fc00::/7'];

/** The trusted proxies, from CIDR ranges or single addresses (`10.0.0.0/8`, `192.0.2.7`, `fd00::/8`). */
export class TrustedProxies {
  private readonly list = new net.BlockList();

  constructor(readonly ranges: readonly string[]) {
    for (const range of ranges) {
      const [address, bits] = range.trim().split('/', 2) as [string, string | undefined];
      const family = net.isIPv4(address) ? 'ipv4' : net.isIPv6(address) ? 'ipv6' : undefined;
      const prefix = bits === undefined ? (family === 'ipv4' ? 32 : 128) : Number(bits);
      if (!family || !Number.isInteger(prefix) || prefix < 0 || prefix > (family === 'ipv4' ? 32 : 128))
        throw new Error(`TRUSTED_PROXIES: "${range}" is not an IP address or a CIDR range such as 10.0.0.0/8`);
      this.list.addSubnet(address, prefix, family);
    }
  }

  /** Parses a comma-separated list; an empty one trusts nobody. */
  static parse(value: string): TrustedProxies {
    return new TrustedProxies(
      value
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
    );
  }

  has(address: string | undefined): boolean {
    const plain = address && unmapped(address);
    if (!plain) return false;
    if (net.isIPv4(plain)) return this.list.check(plain, 'ipv4');
    return net.isIPv6(plain) && this.list.check(plain, 'ipv6');
  }
}

/** `::ffff:10.1.2.3` (an IPv4 client of a dual-stack socket) → `10.1.2.3`. */
function unmapped(address: string): string {
  const m = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  return m ? m[1]! : address;
}

function headerList(value: string | string[] | undefined): string[] {
  const joined = Array.isArray(value) ? value.join(',') : (value ?? '');
  return joined
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

/**
 * The origin of a request that reached us from `peer` with these headers. A peer that is not a
 * trusted proxy is the client, and what it says of itself is ignored. From a trusted one,
 * `X-Forwarded-For` is read from the right, skipping trusted proxies (a load balancer in front
 * of the Ingress), and `X-Forwarded-Proto` is the last value: the one the nearest proxy set.
 */
export function requestOrigin(
  peer: string | undefined,
  headers: Record<string, string | string[] | undefined>,
  trusted: TrustedProxies,
): RequestOrigin {
  const direct = peer && unmapped(peer);
  if (!trusted.has(direct)) return { ip: direct, https: false, clientKnown: true };
  const hops = headerList(headers['x-forwarded-for']).map(unmapped);
  let ip: string | undefined;
  for (let i = hops.length - 1; i >= 0; i--) {
    const hop = hops[i]!;
    if (!net.isIP(hop)) break; // Garbage (or an obfuscated node name) ends what can be believed.
    ip = hop;
    if (!trusted.has(hop)) break;
  }
  const proto = headerList(headers['x-forwarded-proto']).pop()?.toLowerCase();
  return ip === undefined || trusted.has(ip)
    ? { ip: ip ?? direct, https: proto === 'https', clientKnown: false }
    : { ip, https: proto === 'https', clientKnown: true };
}

/**
 * Rewrites a request's forwarded headers to what `requestOrigin` believes (`X-Forwarded-For`: the
 * client alone; `X-Forwarded-Proto`: `https` or `http`), so that a framework reading them (Koa
 * with `app.proxy`) sees only trusted values, and returns that origin.
 */
export function settleForwardedHeaders(req: IncomingMessage, trusted: TrustedProxies): RequestOrigin {
  const origin = requestOrigin(req.socket.remoteAddress, req.headers, trusted);
  req.headers['x-forwarded-proto'] = origin.https ? 'https' : 'http';
  if (origin.ip) req.headers['x-forwarded-for'] = origin.ip;
  else delete req.headers['x-forwarded-for'];
  return origin;
}
