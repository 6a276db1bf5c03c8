import { AppError, type ErrorDetail } from '@smsgw/platform';

/** A client's fleet settings: the default ttl of its sends and how long a phone may be offline before its messages move. */
export interface FleetSettings {
  defaultTtlSeconds: number;
  failoverDelaySeconds: number;
}

// The API's ttl range (a week at most); 0 is "no default".
export const TTL_MIN_SECONDS = 60;
export const TTL_MAX_SECONDS = 604_800;
export const FAILOVER_DELAY_MIN_SECONDS = 10;
export const FAILOVER_DELAY_MAX_SECONDS = 86_400;

const inRange = (value: number, min: number, max: number) => Number.isInteger(value) && value >= min && value <= max;

/** Both settings, or VALIDATION_ERROR naming each bad one. */
export function checkFleetSettings(settings: FleetSettings): void {
  const details: ErrorDetail[] = [];
  const ttl = settings.defaultTtlSeconds;
  if (ttl !== 0 && !inRange(ttl, TTL_MIN_SECONDS, TTL_MAX_SECONDS)) {
    details.push({
      field: 'default_ttl_seconds',
      code: 'INVALID_TTL',
      message: `La durée de vie par défaut doit être 0 (aucune) ou un nombre entier de secondes entre ${TTL_MIN_SECONDS} et ${TTL_MAX_SECONDS}.`,
    });
  }
  if (!inRange(settings.failoverDelaySeconds, FAILOVER_DELAY_MIN_SECONDS, FAILOVER_DELAY_MAX_SECONDS)) {
    details.push({
      field: 'failover_delay_seconds',
      code: 'INVALID_FAILOVER_DELAY',
      message: `Le délai de bascule doit être un nombre entier de secondes entre ${FAILOVER_DELAY_MIN_SECONDS} et ${FAILOVER_DELAY_MAX_SECONDS}.`,
    });
  }
  // One bad field: its own sentence says what is wrong; several: the catalog's.
  if (details.length === 1) throw new AppError('VALIDATION_ERROR', { message: details[0]!.message, details });
  if (details.length > 1) throw new AppError('VALIDATION_ERROR', { details });
}
