import { AppError } from '@smsgw/platform';
import type { AccountRepository } from '../data/account.repository';
import type { AuditRepository, AuditRow } from '../data/audit.repository';

/** The actions the log records so far. */
export const AUDIT_ACTIONS = ['key.created', 'key.revoked', 'smpp.created', 'smpp.revoked'] as const;

/** Who acted: a dashboard user of the client (its e-mail is kept with the event), or the operator's tool. */
export async function actorOf(
  repo: AccountRepository,
  clientId: string,
  userId: string | undefined,
): Promise<{ actorUserId?: string; actor: string }> {
  if (!userId) return { actor: 'operator' };
  const user = await repo.findUser(userId);
  if (!user || user.client_id !== clientId) throw new AppError('NOT_FOUND');
  return { actorUserId: user.user_id, actor: user.email };
}

function time(field: string, value: string): Date | undefined {
  if (!value) return undefined;
  const at = new Date(value);
  if (Number.isNaN(at.getTime())) {
    throw new AppError('INVALID_DATE', {
      details: [{ field, code: 'INVALID_DATE', message: 'Date invalide : une date ISO 8601 est attendue.' }],
    });
  }
  return at;
}

/** The client's audit log, newest first, filtered. */
export async function listAuditEvents(
  audit: AuditRepository,
  clientId: string,
  request: { action: string; from: string; to: string; limit: number; beforeEventId: string },
): Promise<AuditRow[]> {
  if (request.action && !(AUDIT_ACTIONS as readonly string[]).includes(request.action)) {
    throw new AppError('VALIDATION_ERROR', {
      details: [{ field: 'action', code: 'VALIDATION_ERROR', message: `Action inconnue : ${AUDIT_ACTIONS.join(', ')}.` }],
    });
  }
  const limit = request.limit === 0 ? 100 : request.limit;
  if (!Number.isInteger(limit) || limit < 1 || limit > 1000) throw new AppError('INVALID_PAGINATION');
  return audit.list(clientId, {
    action: request.action || undefined,
    from: time('from', request.from),
    to: time('to', request.to),
    beforeEventId: request.beforeEventId && request.beforeEventId !== '0' ? request.beforeEventId : undefined,
    limit,
  });
}
