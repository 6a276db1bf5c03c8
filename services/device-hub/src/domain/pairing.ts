import { isIPv4, isIPv6 } from 'node:net';
import { randomInt } from 'node:crypto';

// No 0/O, 1/I/L: people type these from a screen.
const ALPHABET = '23456789ABCDEFGHJKMNPQRSTUVWXYZ';

function randomCode(length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) out += ALPHABET[randomInt(0, ALPHABET.length)];
  return out;
}

/** A device password reads `XXXX-XXXX-XXXX-XXXX`; its first group finds the device among its client's. */
export function newDevicePassword(): { plain: string; lookup: string; normalized: string } {
  const groups = [randomCode(4), randomCode(4), randomCode(4), randomCode(4)];
  return { plain: groups.join('-'), lookup: groups[0]!, normalized: groups.join('') };
}

/** Upper-cases and strips separators, so `abcd efgh-...` typed by hand still matches. */
export function normalizeDevicePassword(input: string): { lookup: string; normalized: string } | undefined {
  const normalized = input.toUpperCase().replace(/[\s-]/g, '');
  if (!/^[A-Z0-9]{16}$/.test(normalized)) return undefined;
  return { lookup: normalized.slice(0, 4), normalized };
}

/** The part of a pairing code that finds its device (and counts its wrong tries); not secret. */
export const PAIRING_LOOKUP_LENGTH = 8;
/** 26 characters of 31 symbols: 26 × log2(31) ≈ 128.8 bits that only the QR code carries. */
export const PAIRING_SECRET_LENGTH = 26;
export const PAIRING_CODE_LENGTH = PAIRING_LOOKUP_LENGTH + PAIRING_SECRET_LENGTH;

/** A one-time pairing code: its lookup part, then its secret part, in one 34-character string. */
export function newPairingCode(): { plain: string; lookup: string } {
  const lookup = randomCode(PAIRING_LOOKUP_LENGTH);
  return { plain: lookup + randomCode(PAIRING_SECRET_LENGTH), lookup };
}

/** The code as issued (upper case, no separators) and its lookup part; undefined when it cannot be one. */
export function normalizePairingCode(input: string): { lookup: string; normalized: string } | undefined {
  const normalized = input.toUpperCase().replace(/[\s-]/g, '');
  if (!new RegExp(`^[${ALPHABET}]{${PAIRING_CODE_LENGTH}}$`).test(normalized)) return undefined;
  return { lookup: normalized.slice(0, PAIRING_LOOKUP_LENGTH), normalized };
}

/**
 * The address pairing attempts are counted against: an IPv4 address as is (also when written
 * as IPv4-mapped IPv6), an IPv6 address by its /64, since one subscriber usually holds a whole /64.
 */
export function pairingAddressKey(address: string | undefined): string {
  if (!address) return 'unknown';
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1];
  if (mapped && isIPv4(mapped)) return mapped;
  if (isIPv4(address)) return address;
  if (!isIPv6(address)) return 'unknown';
  const [head = '', tail = ''] = address.toLowerCase().split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  // A trailing dotted IPv4 part fills two groups.
  const rightGroups = right.length + (right.at(-1)?.includes('.') ? 1 : 0);
  const groups = address.includes('::') ? [...left, ...Array<string>(8 - left.length - rightGroups).fill('0'), ...right] : left;
  return `${groups
    .slice(0, 4)
    .map((g) => g.replace(/^0+(?=.)/, ''))
    .join(':')}::/64`;
}
