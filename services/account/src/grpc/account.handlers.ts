import { AppError, issueSecret, newClientId, newId, randomAlphanumeric, secretLookup, secretMatches, type AsyncHandlers } from '@smsgw/platform';
import type { account } from '@smsgw/proto';
import type { AccountRepository, ApiKeyRow, NewApiKey } from '../data/account.repository';
import { CLIENT_ID_PATTERN, isEmail, KEY_PREFIX, keyModeOf, type KeyMode } from '../domain/api-key';

const MODE_TO_PROTO = { live: 'KEY_MODE_LIVE', test: 'KEY_MODE_TEST' } as const;

function newKey(clientId: string, mode: KeyMode, label: string): { plain: string; row: NewApiKey } {
  const secret = issueSecret(KEY_PREFIX[mode]);
  return { plain: secret.plain, row: { keyId: newId('key'), clientId, mode, lookup: secret.lookup, hash: secret.hash, label } };
}

export function accountHandlers(repo: AccountRepository): AsyncHandlers<account.AccountServiceHandlers> {
  /** The stored key matching `apiKey`, if it exists and is usable now. */
  async function usableKey(apiKey: string): Promise<ApiKeyRow | undefined> {
    const mode = keyModeOf(apiKey);
    const lookup = mode && secretLookup(KEY_PREFIX[mode], apiKey);
    if (!lookup) return undefined;
    const row = await repo.findKeyByLookup(lookup);
    if (!row || !secretMatches(apiKey, row.key_hash)) return undefined;
    if (row.revoked_at || (row.expires_at && row.expires_at.getTime() <= Date.now())) return undefined;
    return row;
  }

  return {
    async CreateClient(req) {
      const email = req.email.trim();
      if (!isEmail(email)) {
        throw new AppError('VALIDATION_ERROR', { details: [{ field: 'email', code: 'INVALID_EMAIL', message: 'Adresse e-mail invalide.' }] });
      }
      const clientId = newClientId();
      const live = newKey(clientId, 'live', 'live');
      const test = newKey(clientId, 'test', 'test');
      const signingSecret = `whsec_${randomAlphanumeric(40)}`;
      await repo.createClient({ clientId, email, name: req.name.trim(), signingSecret }, [live.row, test.row]);
      return { clientId, liveApiKey: live.plain, testApiKey: test.plain, signingSecret };
    },

    async GetClient(req) {
      const client = await repo.findClient(req.clientId);
      if (!client) throw new AppError('INVALID_CLIENT_ID');
      return { clientId: client.client_id, email: client.email, name: client.name, createdAt: client.created_at.toISOString() };
    },

    async CreateApiKey(req) {
      const mode: KeyMode = req.mode === 'KEY_MODE_TEST' ? 'test' : 'live';
      if (!(await repo.findClient(req.clientId))) throw new AppError('INVALID_CLIENT_ID');
      const key = newKey(req.clientId, mode, req.label);
      await repo.createKey(key.row);
      return { apiKey: key.plain, keyId: key.row.keyId };
    },

    // The order of the checks is the specification's: the key first, then the client.
    async VerifyApiKey(req) {
      const key = await usableKey(req.apiKey);
      if (!key) throw new AppError('INVALID_API_KEY');
      if (key.client_id !== req.clientId) {
        const known = CLIENT_ID_PATTERN.test(req.clientId) && (await repo.findClient(req.clientId));
        throw new AppError(known ? 'INVALID_API_KEY' : 'INVALID_CLIENT_ID');
      }
      return { clientId: key.client_id, mode: MODE_TO_PROTO[key.mode], keyId: key.key_id };
    },

    async RevokeApiKey(req) {
      const mode = keyModeOf(req.apiKey);
      const lookup = mode && secretLookup(KEY_PREFIX[mode], req.apiKey);
      const row = lookup ? await repo.findKeyByLookup(lookup) : undefined;
      if (!row || !secretMatches(req.apiKey, row.key_hash)) throw new AppError('INVALID_API_KEY');
      const revokedAt = await repo.revokeKey(row.key_id);
      return { keyId: row.key_id, revokedAt: revokedAt.toISOString() };
    },

    async GetSigningSecret(req) {
      const client = await repo.findClient(req.clientId);
      if (!client) throw new AppError('INVALID_CLIENT_ID');
      return { clientId: client.client_id, secret: client.signing_secret };
    },
  };
}
