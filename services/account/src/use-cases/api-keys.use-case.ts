import { AppError, secretLookup, secretMatches } from '@smsgw/platform';
import type { AccountRepository, ApiKeyRow, KeyListRow } from '../data/account.repository';
import type { AuditRepository } from '../data/audit.repository';
import { actorOf } from './audit.use-case';
import { CLIENT_ID_PATTERN, issueApiKey, KEY_PREFIX, keyModeOf, type KeyMode } from '../domain/api-key';
import { checkKeyLimits } from '../domain/key-limits';

/** The stored key matching `apiKey`, whether usable or not. */
async function storedKey(repo: AccountRepository, apiKey: string): Promise<ApiKeyRow | undefined> {
  const mode = keyModeOf(apiKey);
  const lookup = mode && secretLookup(KEY_PREFIX[mode], apiKey);
  const row = lookup ? await repo.findKeyByLookup(lookup) : undefined;
  return row && secretMatches(apiKey, row.key_hash) ? row : undefined;
}

/**
 * Another key for a client, with its limits checked (VALIDATION_ERROR); its plain text is shown
 * once. `createdBy`: the dashboard user making it, who must be the client's.
 */
export async function createApiKey(
  repos: { repo: AccountRepository; audit: AuditRepository },
  clientId: string,
  mode: KeyMode,
  label: string,
  limits: { scopes: readonly string[]; ipRanges: readonly string[]; dailyQuota: number } = { scopes: [], ipRanges: [], dailyQuota: 0 },
  by: { userId?: string; address?: string } = {},
): Promise<{ apiKey: string; keyId: string }> {
  const { repo, audit } = repos;
  if (!(await repo.findClient(clientId))) throw new AppError('INVALID_CLIENT_ID');
  const checked = checkKeyLimits(limits);
  const actor = await actorOf(repo, clientId, by.userId);
  const key = issueApiKey(clientId, mode, label, { ...checked, createdBy: actor.actorUserId });
  await repo.createKey(key.row);
  await audit.record({
    clientId,
    ...actor,
    address: by.address ?? '',
    action: 'key.created',
    target: key.row.keyId,
    details: { label, mode, scopes: checked.scopes, ip_ranges: checked.ipRanges, daily_quota: checked.dailyQuota },
  });
  return { apiKey: key.plain, keyId: key.row.keyId };
}

/**
 * The key of a request, usable now (neither revoked nor expired) and the
 * client's. The order of the checks is the specification's: the key first,
 * then the client; then a live key waits for its account's address to be
 * verified (ACCOUNT_NOT_VERIFIED), so that an account signed up with someone
 * else's address sends nothing through phones. Test keys work before, to try the API.
 */
export async function verifyApiKey(repo: AccountRepository, apiKey: string, clientId: string): Promise<ApiKeyRow> {
  const key = await storedKey(repo, apiKey);
  if (!key || key.revoked_at || (key.expires_at && key.expires_at.getTime() <= Date.now())) throw new AppError('INVALID_API_KEY');
  if (key.client_id !== clientId) {
    const known = CLIENT_ID_PATTERN.test(clientId) && (await repo.findClient(clientId));
    throw new AppError(known ? 'INVALID_API_KEY' : 'INVALID_CLIENT_ID');
  }
  if (key.mode === 'live' && !key.account_verified) throw new AppError('ACCOUNT_NOT_VERIFIED');
  // Last use, for the dashboard; a lost write only makes it older.
  void repo.touchKey(key.key_id).catch(() => undefined);
  return key;
}

/** Revokes the key given in full (revoked already: the first revocation's time); the operator's tool. */
export async function revokeApiKey(
  repos: { repo: AccountRepository; audit: AuditRepository },
  apiKey: string,
): Promise<{ keyId: string; revokedAt: Date }> {
  const row = await storedKey(repos.repo, apiKey);
  if (!row) throw new AppError('INVALID_API_KEY');
  const revokedAt = await repos.repo.revokeKey(row.key_id);
  await repos.audit.record({
    clientId: row.client_id,
    actor: 'operator',
    address: '',
    action: 'key.revoked',
    target: row.key_id,
    details: {},
  });
  return { keyId: row.key_id, revokedAt };
}

/** Revokes a client's key by its id (the dashboard), recording who did it. */
export async function revokeApiKeyById(
  repos: { repo: AccountRepository; audit: AuditRepository },
  clientId: string,
  keyId: string,
  by: { userId?: string; address?: string } = {},
): Promise<Date> {
  const actor = await actorOf(repos.repo, clientId, by.userId);
  const revokedAt = await repos.repo.revokeClientKey(clientId, keyId);
  if (!revokedAt) throw new AppError('NOT_FOUND');
  await repos.audit.record({ clientId, ...actor, address: by.address ?? '', action: 'key.revoked', target: keyId, details: {} });
  return revokedAt;
}

export function listApiKeys(repo: AccountRepository, clientId: string): Promise<KeyListRow[]> {
  return repo.listKeys(clientId);
}
