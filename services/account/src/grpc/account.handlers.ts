import { AppError, issueSecret, keyModeToProto, modeFromProto, newClientId, newId, randomAlphanumeric, secretLookup, secretMatches, type AsyncHandlers } from '@smsgw/platform';
import type { account } from '@smsgw/proto';
import { hash as argon2Hash, verify as argon2Verify } from '@node-rs/argon2';
import { EmailTakenError, type AccountRepository, type ApiKeyRow, type NewApiKey, type UserRow } from '../data/account.repository';
import { CLIENT_ID_PATTERN, isEmail, KEY_PREFIX, keyModeOf, type KeyMode } from '../domain/api-key';


function newKey(clientId: string, mode: KeyMode, label: string): { plain: string; row: NewApiKey } {
  const secret = issueSecret(KEY_PREFIX[mode]);
  return { plain: secret.plain, row: { keyId: newId('key'), clientId, mode, lookup: secret.lookup, hash: secret.hash, label } };
}

/** argon2id with OWASP's minimum (19 MiB, 2 passes, 1 lane): about 20 ms a hash here. */
const ARGON2 = { algorithm: 2, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;
const MIN_PASSWORD = 10;
const MAX_PASSWORD = 200;
/** Compared against when the e-mail is unknown, so that both failures take as long. */
const DUMMY_HASH = argon2Hash('not a password of anyone', ARGON2);

function passwordProblem(password: string): AppError | undefined {
  if (password.length < MIN_PASSWORD || password.length > MAX_PASSWORD) {
    return new AppError('VALIDATION_ERROR', {
      details: [{ field: 'password', code: 'WEAK_PASSWORD', message: `Le mot de passe doit faire de ${MIN_PASSWORD} à ${MAX_PASSWORD} caractères.` }],
    });
  }
  return undefined;
}

const userOut = (u: UserRow) => ({ userId: u.user_id, email: u.email, clientId: u.client_id, createdAt: u.created_at.toISOString() });
const NO_USER = { userId: '', email: '', clientId: '', createdAt: '' };

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
      const mode: KeyMode = modeFromProto(req.mode);
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
      // Last use, for the dashboard; a lost write only makes it older.
      void repo.touchKey(key.key_id).catch(() => undefined);
      return { clientId: key.client_id, mode: keyModeToProto(key.mode), keyId: key.key_id };
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

    async SignUp(req) {
      const email = req.email.trim();
      if (!isEmail(email)) {
        throw new AppError('VALIDATION_ERROR', { details: [{ field: 'email', code: 'INVALID_EMAIL', message: 'Adresse e-mail invalide.' }] });
      }
      const weak = passwordProblem(req.password);
      if (weak) throw weak;
      const clientId = newClientId();
      const live = newKey(clientId, 'live', 'live');
      const test = newKey(clientId, 'test', 'test');
      const userId = newId('usr');
      const passwordHash = await argon2Hash(req.password, ARGON2);
      try {
        await repo.createClient({ clientId, email, name: req.name.trim(), signingSecret: `whsec_${randomAlphanumeric(40)}` }, [live.row, test.row], { userId, passwordHash });
      } catch (err) {
        if (err instanceof EmailTakenError) {
          throw new AppError('VALIDATION_ERROR', { details: [{ field: 'email', code: 'EMAIL_TAKEN', message: 'Un compte existe déjà pour cette adresse.' }] });
        }
        throw err;
      }
      const user = (await repo.findUser(userId))!;
      return { user: userOut(user), liveApiKey: live.plain, testApiKey: test.plain };
    },

    async SignIn(req) {
      const user = await repo.findUserByEmail(req.email.trim());
      const ok = await argon2Verify(user?.password_hash ?? (await DUMMY_HASH), req.password).catch(() => false);
      return user && ok ? userOut(user) : NO_USER;
    },

    async GetUser(req) {
      const user = await repo.findUser(req.userId);
      if (!user) throw new AppError('NOT_FOUND');
      return userOut(user);
    },

    async ChangePassword(req) {
      const user = await repo.findUser(req.userId);
      if (!user) throw new AppError('NOT_FOUND');
      if (!(await argon2Verify(user.password_hash, req.currentPassword).catch(() => false))) return { changed: false };
      const weak = passwordProblem(req.newPassword);
      if (weak) throw weak;
      await repo.setPassword(user.user_id, await argon2Hash(req.newPassword, ARGON2));
      return { changed: true };
    },

    async UpdateClient(req) {
      const email = req.email.trim();
      if (email && !isEmail(email)) {
        throw new AppError('VALIDATION_ERROR', { details: [{ field: 'email', code: 'INVALID_EMAIL', message: 'Adresse e-mail invalide.' }] });
      }
      const client = await repo.updateClient(req.clientId, { email: email || undefined, name: req.name.trim() || undefined });
      if (!client) throw new AppError('INVALID_CLIENT_ID');
      return { clientId: client.client_id, email: client.email, name: client.name, createdAt: client.created_at.toISOString() };
    },

    async ListApiKeys(req) {
      const keys = await repo.listKeys(req.clientId);
      return {
        keys: keys.map((k) => ({
          keyId: k.key_id,
          mode: keyModeToProto(k.mode),
          label: k.label,
          prefix: `${KEY_PREFIX[k.mode]}${k.lookup.slice(0, 6)}…`,
          createdAt: k.created_at.toISOString(),
          lastUsedAt: k.last_used_at?.toISOString() ?? '',
          revokedAt: k.revoked_at?.toISOString() ?? '',
        })),
      };
    },

    async RevokeApiKeyById(req) {
      const revokedAt = await repo.revokeClientKey(req.clientId, req.keyId);
      if (!revokedAt) throw new AppError('NOT_FOUND');
      return { keyId: req.keyId, revokedAt: revokedAt.toISOString() };
    },

    async RotateSigningSecret(req) {
      const secret = `whsec_${randomAlphanumeric(40)}`;
      if (!(await repo.setSigningSecret(req.clientId, secret))) throw new AppError('INVALID_CLIENT_ID');
      return { clientId: req.clientId, secret };
    },
  };
}
