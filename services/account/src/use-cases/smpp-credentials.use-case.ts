import { AppError } from '@smsgw/platform';
import type { AccountRepository } from '../data/account.repository';
import type { AuditRepository } from '../data/audit.repository';
import type { SmppBindRow, SmppCredentialRepository, SmppCredentialRow } from '../data/smpp-credential.repository';
import type { KeyMode } from '../domain/api-key';
import { bindAllowed, issueSmppCredential, smppPasswordMatches, type SmppBindType } from '../domain/smpp-credential';
import { actorOf } from './audit.use-case';

interface Repos {
  repo: AccountRepository;
  audit: AuditRepository;
  smpp: SmppCredentialRepository;
}

const LABEL_MAX = 100;

/** A new SMPP credential of a client; its password is shown once. */
export async function createSmppCredential(
  repos: Repos,
  clientId: string,
  fields: { bindType: SmppBindType; mode: KeyMode; label: string; deviceId: string },
  by: { userId?: string; address?: string } = {},
): Promise<{ credential: SmppCredentialRow; password: string }> {
  if (!(await repos.repo.findClient(clientId))) throw new AppError('INVALID_CLIENT_ID');
  const label = fields.label.trim();
  if (label.length > LABEL_MAX) {
    const message = `Le libellé fait au plus ${LABEL_MAX} caractères.`;
    throw new AppError('VALIDATION_ERROR', { message, details: [{ field: 'label', code: 'VALIDATION_ERROR', message }] });
  }
  const actor = await actorOf(repos.repo, clientId, by.userId);
  // A system id already taken (one chance in billions) draws another.
  for (;;) {
    const issued = issueSmppCredential({ clientId, ...fields, label, createdBy: actor.actorUserId });
    const credential = await repos.smpp.create(issued.row);
    if (!credential) continue;
    await repos.audit.record({
      clientId,
      ...actor,
      address: by.address ?? '',
      action: 'smpp.created',
      target: credential.credential_id,
      details: { system_id: credential.system_id, bind_type: fields.bindType, mode: fields.mode, label, device_id: fields.deviceId },
    });
    return { credential, password: issued.password };
  }
}

export function listSmppCredentials(repos: Pick<Repos, 'smpp'>, clientId: string): Promise<SmppCredentialRow[]> {
  return repos.smpp.list(clientId);
}

export async function revokeSmppCredential(
  repos: Repos,
  clientId: string,
  credentialId: string,
  by: { userId?: string; address?: string } = {},
): Promise<SmppCredentialRow> {
  const actor = await actorOf(repos.repo, clientId, by.userId);
  const revoked = await repos.smpp.revoke(clientId, credentialId);
  if (!revoked) throw new AppError('NOT_FOUND');
  await repos.audit.record({ clientId, ...actor, address: by.address ?? '', action: 'smpp.revoked', target: credentialId, details: {} });
  return revoked;
}

/**
 * A bind's checks: the system id, then the password, then the credential in force (INVALID_API_KEY
 * for any of them: a caller learns nothing of which), then the bind type (SCOPE_NOT_ALLOWED), then
 * a live credential's account verified (ACCOUNT_NOT_VERIFIED), as keys.
 */
export async function verifySmppBind(
  repos: Pick<Repos, 'smpp'>,
  systemId: string,
  password: string,
  bindType: SmppBindType,
): Promise<SmppBindRow> {
  const row = systemId.length <= 16 ? await repos.smpp.findBySystemId(systemId) : undefined;
  if (!row || !smppPasswordMatches(systemId, password, row.password_hash) || row.revoked_at) throw new AppError('INVALID_API_KEY');
  if (!bindAllowed(row.bind_type, bindType)) throw new AppError('SCOPE_NOT_ALLOWED');
  if (row.mode === 'live' && !row.account_verified) throw new AppError('ACCOUNT_NOT_VERIFIED');
  void repos.smpp.touch(row.credential_id).catch(() => undefined);
  return row;
}
