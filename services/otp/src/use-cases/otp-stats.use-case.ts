import { statsPeriod } from '@smsgw/platform';
import type { Mode } from '../data/otp.repository';
import { otpStats, type OtpStats } from '../domain/otp-stats';
import type { OtpService } from './otp-service';

/** The longest an OTP lives (its expiry), after which the purge's wait begins. */
const LONGEST_EXPIRY_HOURS = 1;

/**
 * GET /v1/otp/stats: the client's codes of a mode over a period (the filters and defaults of
 * /v1/sms/stats), from its OTPs and the daily rollups of those purged. A bound older than the
 * OTPs kept is widened to its whole UTC day, as the SMS statistics do past their retention.
 */
export async function getOtpStats(
  service: OtpService,
  clientId: string,
  mode: Mode,
  query: { fromDate: string; toDate: string; deviceId: string },
): Promise<OtpStats & { from: string; to: string }> {
  const keptDays = (service.keepExpiredHours + LONGEST_EXPIRY_HOURS) / 24;
  const period = statsPeriod(query.fromDate, query.toDate, new Date(), keptDays);
  const rows = await service.repo.counts(clientId, mode, period, query.deviceId || undefined);
  return { from: period.from.toISOString(), to: new Date(period.until.getTime() - 1).toISOString(), ...otpStats(rows) };
}
