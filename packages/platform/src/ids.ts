import { createHash, randomBytes, randomInt } from 'node:crypto';
import { monotonicFactory } from 'ulid';

/**
 * The random part of ids, from the system's CSPRNG as the default does, but
 * drawn 4 KB at a time: the default asks the kernel once per character,
 * which cost ~5 % of the gateway's CPU (one request id per request).
 */
const POOL_BYTES = 4096;
let pool = Buffer.alloc(0);
let offset = 0;
function pooledRandom(): number {
  if (offset >= pool.length) {
    pool = randomBytes(POOL_BYTES);
    offset = 0;
  }
  return pool[offset++]! / 0x100;
}

const ulid = monotonicFactory(pooledRandom);

export type IdPrefix =
  'msg' | 'batch' | 'otp' | 'evt' | 'device' | 'key' | 'tok' | 'whe' | 'whb' | 'dlv' | 'tmr' | 'req' | 'usr' | 'hold' | 'smpp';

/** Time-sortable identifier with the specification's prefix, e.g. `msg_01JD3...`. */
export function newId(prefix: IdPrefix): string {
  return `${prefix}_${ulid()}`;
}

/** `client_` then digits, as the specification requires: milliseconds then 6 random digits. */
export function newClientId(): string {
  return `client_${Date.now()}${String(randomInt(0, 1_000_000)).padStart(6, '0')}`;
}

const ALPHANUMERIC = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** A uniformly random alphanumeric string (rejection sampling, no modulo bias). */
export function randomAlphanumeric(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248 && out.length < length) out += ALPHANUMERIC[byte % 62];
    }
  }
  return out;
}

export function randomDigits(length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) out += String(randomInt(0, 10));
  return out;
}

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/**
 * A ULID-shaped id that is the same every time for the same `seed`: its time
 * part is `timeMs`, its random part a hash of the seed. Used for event ids,
 * so that an event published again after a crash keeps its id and receivers
 * can de-duplicate on it.
 */
export function deterministicId(prefix: IdPrefix, timeMs: number, seed: string): string {
  let time = '';
  let t = Math.max(0, Math.floor(timeMs));
  for (let i = 0; i < 10; i++) {
    time = CROCKFORD[t % 32]! + time;
    t = Math.floor(t / 32);
  }
  const digest = createHash('sha256').update(seed).digest();
  let rest = '';
  for (let i = 0; i < 16; i++) rest += CROCKFORD[digest[i]! % 32];
  return `${prefix}_${time}${rest}`;
}
