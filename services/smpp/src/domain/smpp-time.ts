/**
 * SMPP 3.4 times (section 7.1.1): `YYMMDDhhmmsstnnp`, 16 characters. `p` is `+` or `-` for an
 * absolute time, `nn` its offset from UTC in quarter hours and `t` tenths of a second; `R` for a
 * relative time, `YYMMDDhhmmss` then being years, months, days, hours, minutes and seconds from now.
 */

export class SmppTimeError extends Error {
  constructor(readonly value: string) {
    super(`not an SMPP time: "${value}"`);
    this.name = 'SmppTimeError';
  }
}

const PATTERN = /^(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})(\d)(\d{2})([+\-R])$/;

/** The instant an SMPP time stands for, undefined for the empty string (none given). */
export function parseSmppTime(value: string, now: Date = new Date()): Date | undefined {
  if (value === '') return undefined;
  const m = PATTERN.exec(value);
  if (!m) throw new SmppTimeError(value);
  const [yy, mo, dd, hh, mi, ss, t, nn] = m.slice(1, 9).map(Number) as [number, number, number, number, number, number, number, number];
  const sign = m[9]!;
  if (sign === 'R') {
    // Relative: added field by field to now, as calendars do (a month from the 31st is the 1st or so).
    const at = new Date(now.getTime());
    at.setUTCFullYear(at.getUTCFullYear() + yy, at.getUTCMonth() + mo, at.getUTCDate() + dd);
    return new Date(at.getTime() + ((hh * 60 + mi) * 60 + ss) * 1000);
  }
  if (mo < 1 || mo > 12 || dd < 1 || dd > 31 || hh > 23 || mi > 59 || ss > 59 || nn > 48) throw new SmppTimeError(value);
  const utc = Date.UTC(2000 + yy, mo - 1, dd, hh, mi, ss, t * 100);
  // The time is local to its offset: UTC is that time minus the offset.
  const offsetMs = nn * 15 * 60_000 * (sign === '+' ? 1 : -1);
  return new Date(utc - offsetMs);
}

const two = (n: number) => String(n).padStart(2, '0');

/** `YYMMDDhhmm` in UTC: the receipt's `submit date` and `done date`. */
export function receiptDate(at: Date): string {
  return `${two(at.getUTCFullYear() % 100)}${two(at.getUTCMonth() + 1)}${two(at.getUTCDate())}${two(at.getUTCHours())}${two(at.getUTCMinutes())}`;
}

/** An absolute SMPP time in UTC (`...000+`): query_sm's final_date. */
export function absoluteSmppTime(at: Date): string {
  return `${receiptDate(at)}${two(at.getUTCSeconds())}${Math.floor(at.getUTCMilliseconds() / 100)}00+`;
}
