import net from 'node:net';

/**
 * What an API key may be limited to: scopes (what it may call), source address ranges (where it
 * may call from) and a daily quota of SMS. A key with no scopes may call everything, with no
 * ranges may call from anywhere, with a quota of 0 may send without a daily bound. The account
 * service checks what an owner asks for with these rules; the gateway enforces them.
 */
export const KEY_SCOPES = ['send', 'otp', 'read', 'inbox', 'opt-outs', 'listen'] as const;
export type KeyScope = (typeof KEY_SCOPES)[number];

/** At most this many address ranges per key. */
export const MAX_KEY_IP_RANGES = 20;
/** The largest daily quota an owner may set (0: none). */
export const MAX_KEY_DAILY_QUOTA = 10_000_000;

export function isKeyScope(value: string): value is KeyScope {
  return (KEY_SCOPES as readonly string[]).includes(value);
}

/** An IPv4-mapped IPv6 address (`::ffff:127.0.0.1`, as a dual-stack socket reports IPv4 callers) as plain IPv4. */
export function plainAddress(address: string): string {
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(address);
  return mapped ? mapped[1]! : address;
}

/**
 * A range written `address/prefix` (or a single address, taken as /32 or /128), IPv4 or IPv6, in
 * its canonical form (the address's host bits cleared: `10.1.2.3/8` is `10.0.0.0/8`); undefined
 * when it is not one.
 */
export function canonicalRange(text: string): string | undefined {
  const [address, prefixText, extra] = text.trim().split('/');
  if (extra !== undefined || !address) return undefined;
  const plain = plainAddress(address);
  const family = net.isIPv4(plain) ? 4 : net.isIPv6(plain) ? 6 : 0;
  if (family === 0) return undefined;
  const bits = family === 4 ? 32 : 128;
  if (prefixText !== undefined && !/^\d{1,3}$/.test(prefixText)) return undefined;
  const prefix = prefixText === undefined ? bits : Number(prefixText);
  if (prefix > bits) return undefined;
  const value = addressBits(plain, family) & ~((1n << BigInt(bits - prefix)) - 1n);
  return `${formatBits(value, family)}/${prefix}`;
}

function addressBits(address: string, family: 4 | 6): bigint {
  if (family === 4) return address.split('.').reduce((acc, part) => (acc << 8n) | BigInt(Number(part)), 0n);
  // Expand `::` and a trailing dotted IPv4 part into eight groups of 16 bits.
  let text = address;
  const dotted = /(\d{1,3}(?:\.\d{1,3}){3})$/.exec(text);
  if (dotted) {
    const v4 = addressBits(dotted[1]!, 4);
    text = `${text.slice(0, dotted.index)}${(v4 >> 16n).toString(16)}:${(v4 & 0xffffn).toString(16)}`;
  }
  const [head, tail] = text.split('::');
  const headGroups = head ? head.split(':') : [];
  const tailGroups = tail ? tail.split(':') : [];
  const groups =
    tail === undefined ? headGroups : [...headGroups, ...Array(8 - headGroups.length - tailGroups.length).fill('0'), ...tailGroups];
  return groups.reduce((acc, group) => (acc << 16n) | BigInt(parseInt(group, 16)), 0n);
}

function formatBits(value: bigint, family: 4 | 6): string {
  if (family === 4) return [24n, 16n, 8n, 0n].map((shift) => ((value >> shift) & 0xffn).toString()).join('.');
  const groups = Array.from({ length: 8 }, (_, i) => ((value >> BigInt(112 - 16 * i)) & 0xffffn).toString(16));
  // The canonical text (RFC 5952) is what the URL parser writes.
  return new URL(`http://[${groups.join(':')}]/`).hostname.slice(1, -1);
}

/** A key's ranges, ready to test addresses against (built once per verified key). */
export class AddressRanges {
  private readonly list = new net.BlockList();

  constructor(readonly ranges: readonly string[]) {
    for (const range of ranges) {
      const canonical = canonicalRange(range);
      if (!canonical) continue;
      const [address, prefix] = canonical.split('/');
      this.list.addSubnet(address!, Number(prefix), net.isIPv4(address!) ? 'ipv4' : 'ipv6');
    }
  }

  /** Whether the address is in one of the ranges (an unknown address never is). */
  allows(address: string | undefined): boolean {
    if (address === undefined) return false;
    const plain = plainAddress(address);
    if (net.isIPv4(plain)) return this.list.check(plain, 'ipv4');
    if (net.isIPv6(plain)) return this.list.check(plain, 'ipv6');
    return false;
  }
}

/** Milliseconds from `ms` to the start of the next UTC day. */
export function msToNextUtcDay(ms: number): number {
  const next = new Date(ms);
  next.setUTCHours(24, 0, 0, 0);
  return next.getTime() - ms;
}

/**
 * The Redis key (after the prefix) that counts a key's SMS of one UTC day (`YYYY-MM-DD`, periods'
 * `utcDay`): the gateway adds to it, the dashboard reads it.
 */
export function keyUsageKey(keyId: string, day: string): string {
  return `key-usage:${keyId}:${day}`;
}
