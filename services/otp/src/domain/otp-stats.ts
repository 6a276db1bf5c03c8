import { conversionRate } from './otp-guard';

/** The counts of one UTC day and destination country (live OTPs and rollups alike). */
export interface OtpCounts {
  day: string;
  country: string;
  sent: number;
  verified: number;
  expired: number;
  failed_attempts: number;
}

/** The figures of GET /v1/otp/stats. */
export interface OtpStats {
  sent: number;
  verified: number;
  /** Never verified and past their expiry. */
  expired: number;
  /** Wrong codes given. */
  failedAttempts: number;
  /** verified / sent in percent, two decimals. */
  conversionRate: number;
  /** One entry per UTC day that has codes, oldest first. */
  byDay: { date: string; sent: number; verified: number }[];
  /** One entry per destination country, most codes first (then by code). */
  byCountry: { country: string; sent: number; verified: number }[];
}

/** The totals, days and countries of a period's counts. */
export function otpStats(rows: readonly OtpCounts[]): OtpStats {
  let sent = 0;
  let verified = 0;
  let expired = 0;
  let failedAttempts = 0;
  const days = new Map<string, { date: string; sent: number; verified: number }>();
  const countries = new Map<string, { country: string; sent: number; verified: number }>();
  for (const r of rows) {
    sent += r.sent;
    verified += r.verified;
    expired += r.expired;
    failedAttempts += r.failed_attempts;
    const day = days.get(r.day) ?? { date: r.day, sent: 0, verified: 0 };
    day.sent += r.sent;
    day.verified += r.verified;
    days.set(r.day, day);
    const country = countries.get(r.country) ?? { country: r.country, sent: 0, verified: 0 };
    country.sent += r.sent;
    country.verified += r.verified;
    countries.set(r.country, country);
  }
  return {
    sent,
    verified,
    expired,
    failedAttempts,
    conversionRate: conversionRate(verified, sent),
    byDay: [...days.values()].sort((a, b) => a.date.localeCompare(b.date)),
    byCountry: [...countries.values()].sort((a, b) => b.sent - a.sent || a.country.localeCompare(b.country)),
  };
}
