import { AppError } from '@smsgw/platform';
import type { MessageService } from './message-service';

/** About a century: the cutoff stays a date Postgres can compute. */
const MAX_RETENTION_DAYS = 36_500;

/**
 * Moves the messages and received SMS stored more than `retentionDays` days
 * ago (0: the configured retention) into the daily rollups, waiting for a run
 * another replica has under way, and deletes the expired campaign files.
 * Returns how many messages left the table (RunRetention's `deleted`); the
 * received SMS folded and the files deleted are logged.
 */
export async function runRetention(service: MessageService, retentionDays: number): Promise<number> {
  if (retentionDays < 0 || retentionDays > MAX_RETENTION_DAYS) {
    throw new AppError('VALIDATION_ERROR', {
      message: `retention_days doit être un nombre de jours entre 1 et ${MAX_RETENTION_DAYS} (0 : la durée configurée).`,
      details: [{ field: 'retention_days', code: 'VALIDATION_ERROR' }],
    });
  }
  const days = retentionDays || service.config.retention.days;
  const run = await service.history.runRetention(days, { wait: true });
  // Campaign files past their hour that no later upload of their client swept away.
  const uploads = await service.campaignUploads.deleteExpired();
  if (run) {
    service.log.info(
      { deleted: run.deleted, received_deleted: run.received, campaign_uploads_deleted: uploads, retention_days: days },
      'retention run',
    );
  }
  return run?.deleted ?? 0;
}
