import { AppError, AUDIT_ACTIONS } from '@smsgw/platform';
import type { AccountRepository } from '../data/account.repository';
import type { AuditRepository, AuditRow } from '../data/audit.repository';

/** The actions other services' changes are recorded as, through RecordAuditEvent (the others, the account service records itself). */
const RECORDED_FOR_OTHERS: readonly string[] = [
  'secret.shown',
  'secret.rotated',
  'phone.added',
  'phone.credentials_rotated',
  'phone.revoked',
  'phone.removed',
  'webhook.created',
  'webhook.changed',
  'webhook.deleted',
  'settings.changed',
];

function checkAction(action: string, known: readonly string[]): void {
  if (!known.includes(action)) {
    throw new AppError('VALIDATION_ERROR', {
      details: [{ field: 'action', code: 'VALIDATION_ERROR', message: `Action inconnue : ${known.join(', ')}.` }],
    });
  }
}

/** An action done through another service, recorded with its actor (a user of the client, or the operator). */
export async function recordAuditEvent(
  repos: { repo: AccountRepository; audit: AuditRepository },
  request: { clientId: string; userId: string; address: string; action: string; target: string; detailsJson: string },
): Promise<void> {
  checkAction(request.action, RECORDED_FOR_OTHERS);
  let details: unknown;
  try {
    details = request.detailsJson ? JSON.parse(request.detailsJson) : {};
  } catch {
    details = undefined;
  }
  if (typeof details !== 'object' || details === null || Array.isArray(details)) {
    throw new AppError('VALIDATION_ERROR', {
      details: [{ field: 'details_json', code: 'VALIDATION_ERROR', message: 'Les détails sont un objet JSON.' }],
    });
  }
  const actor = await actorOf(repos.repo, request.clientId, request.userId || undefined);
  await repos.audit.record({
    clientId: request.clientId,
    ...actor,
    address: request.address.slice(0, 100),
    action: request.action,
    target: request.target.slice(0, 200),
    details: details as Record<string, unknown>,
  });
}

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
  request: { action: string; actor: string; from: string; to: string; limit: number; beforeEventId: string },
): Promise<AuditRow[]> {
  if (request.action) checkAction(request.action, AUDIT_ACTIONS);
  const limit = request.limit === 0 ? 100 : request.limit;
  if (!Number.isInteger(limit) || limit < 1 || limit > 1000) throw new AppError('INVALID_PAGINATION');
  return audit.list(clientId, {
    action: request.action || undefined,
    actor: request.actor.trim() || undefined,
    from: time('from', request.from),
    to: time('to', request.to),
    beforeEventId: request.beforeEventId && request.beforeEventId !== '0' ? request.beforeEventId : undefined,
    limit,
  });
}
