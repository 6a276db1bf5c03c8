import { randomInt } from 'node:crypto';

// No 0/O, 1/I/L: people type these from a screen.
const ALPHABET = '23456789ABCDEFGHJKMNPQRSTUVWXYZ';

function randomCode(length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) out += ALPHABET[randomInt(0, ALPHABET.length)];
  return out;
}

/** A device password reads `XXXX-XXXX-XXXX-XXXX`; its first group finds the device. */
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

export function newPairingCode(): string {
  return randomCode(8);
}

export function normalizePairingCode(input: string): string {
  return input.toUpperCase().replace(/[\s-]/g, '');
}

/** The dispatch pause between two SMS of one phone: uniform in [min, max]. */
export function pacingDelay(minMs: number, maxMs: number, random: () => number = Math.random): number {
  return Math.round(minMs + (Math.max(minMs, maxMs) - minMs) * random());
}
