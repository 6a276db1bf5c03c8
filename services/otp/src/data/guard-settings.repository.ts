import type { Pool } from '@smsgw/platform';
import { checkGuardSettings, settingsInput, type GuardSettings, type GuardSettingsInput } from '../domain/otp-guard';

/** A client's own thresholds of the pumping guard; without a row, the operator's defaults. */
export class GuardSettingsRepository {
  constructor(private readonly pool: Pool) {}

  /** The client's settings, undefined when it never set them. */
  async find(clientId: string): Promise<GuardSettings | undefined> {
    const { rows } = await this.pool.query<GuardSettingsInput>(
      `SELECT enabled, window_seconds, prefix_min_requests, prefix_min_conversion, country_min_requests, country_min_conversion,
              end_user_limit, end_user_window_seconds
       FROM guard_settings WHERE client_id = $1`,
      [clientId],
    );
    return rows[0] && checkGuardSettings(rows[0]);
  }

  async save(clientId: string, settings: GuardSettings): Promise<void> {
    const s = settingsInput(settings);
    await this.pool.query(
      `INSERT INTO guard_settings (client_id, enabled, window_seconds, prefix_min_requests, prefix_min_conversion, country_min_requests,
                                   country_min_conversion, end_user_limit, end_user_window_seconds)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
       ON CONFLICT (client_id) DO UPDATE SET enabled = $2, window_seconds = $3, prefix_min_requests = $4, prefix_min_conversion = $5,
         country_min_requests = $6, country_min_conversion = $7, end_user_limit = $8, end_user_window_seconds = $9, updated_at = now()`,
      [
        clientId,
        s.enabled,
        s.window_seconds,
        s.prefix_min_requests,
        s.prefix_min_conversion,
        s.country_min_requests,
        s.country_min_conversion,
        s.end_user_limit,
        s.end_user_window_seconds,
      ],
    );
  }
}
