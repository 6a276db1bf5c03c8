// GSM-7 or UCS-2, the parts and the characters of a text: how the message service measures what
// it stores (parts, encoding, the 1600-character limit of its send rules), here so that every
// edge (gateway, OTP, dashboard, the hub's simulated SMS) counts a text exactly alike.

// GSM 03.38 default alphabet and its extension table (each extension
// character costs two septets: an escape and the character).
const GSM_BASIC = new Set(
  Array.from(
    '@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !"#¤%&\'()*+,-./0123456789:;<=>?¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà',
  ),
);
const GSM_EXTENSION = new Set(Array.from('\f^{}\\[~]|€'));

export type SmsEncoding = 'GSM-7' | 'UCS-2';

export interface SmsSize {
  encoding: SmsEncoding;
  parts: number;
  /** Code points, the unit of the 1600-character limit. */
  characters: number;
}

/** The longest text a message may have, in characters (code points): MESSAGE_TOO_LONG beyond. */
export const MAX_SMS_CHARACTERS = 1600;

/** A text's characters as every limit counts them: code points (an emoji is one), as `measureSms` counts them. */
export function smsCharacters(text: string): number {
  let count = 0;
  for (const _ of text) count++;
  return count;
}

/** How many SMS parts a text takes, never splitting a character across two parts. */
export function measureSms(text: string): SmsSize {
  const chars = Array.from(text);
  const gsm = chars.every((c) => GSM_BASIC.has(c) || GSM_EXTENSION.has(c));
  const units = gsm ? chars.map((c) => (GSM_EXTENSION.has(c) ? 2 : 1)) : chars.map((c) => c.length);
  const [single, multi] = gsm ? [160, 153] : [70, 67];
  const total = units.reduce((a, b) => a + b, 0);
  if (total <= single) return { encoding: gsm ? 'GSM-7' : 'UCS-2', parts: 1, characters: chars.length };
  let parts = 1;
  let used = 0;
  for (const u of units) {
    if (used + u > multi) {
      parts++;
      used = 0;
    }
    used += u;
  }
  return { encoding: gsm ? 'GSM-7' : 'UCS-2', parts, characters: chars.length };
}
