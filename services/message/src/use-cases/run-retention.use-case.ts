import { AppError } from '@smsgw/platform';
import type { MessageService } from './message-service';

/** About a century: the cutoff stays a date Postgres can compute. */
const MAX_RETENTION_DAYS = 36_500;

/**
 * Moves the messages created more than `retentionDays` days ago (0: the
 * configured retention) into the daily rollups, waiting for a run another
 * replica has under way. Returns how many messages left the table.
 */
export async function runRetention(service: MessageService, retentionDays: number): Promise<number> {
  if (retentionDays < 0 || retentionDays > MAX_RETENTION_DAYS) {
    throw new AppError('VALIDATION_ERROR', {
      message: `retention_days doit être un nombre de jours entre 1 et ${MAX_RETENTION_DAYS} (0 : la durée configurée).`,
      details: [{ field: 'retention_days', code: 'VALIDATION_ERROR' }],
    });
  }
  const deleted = await service.history.runRetention(retentionDays || service.config.retention.days, { wait: true });
  return deleted ?? 0;
}
