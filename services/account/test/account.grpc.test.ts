import { randomBytes } from 'node:crypto';
import * as grpc from '@grpc/grpc-js';
import { AppError, createClient, healthService, quoteIdent, type Pool, type PromiseClient } from '@smsgw/platform';
import { accountProto, type account } from '@smsgw/proto';
import { clientOfAllowedCallers, eventually, grpcTlsFor, startServiceUnderTest, thrownBy } from '@smsgw/testing';
import { loadAccountConfig } from '../src/config';
import { accountCallers } from '../src/grpc/account.handlers';
import { start } from '../src/main';

const KEY_BODY = /^[A-Za-z0-9]{40}$/;

async function failure(promise: Promise<unknown>): Promise<AppError> {
  try {
    await promise;
  } catch (err) {
    expect(err).toBeInstanceOf(AppError);
    return err as AppError;
  }
  throw new Error('expected the call to fail');
}

/** The real account service on port 0, on a schema of its own. */
const startAccountService = () =>
  startServiceUnderTest({ name: 'account', loadConfig: loadAccountConfig, start, env: { DATABASE_POOL_MAX: '4' } });

/** The same key with its last character changed: same lookup, wrong secret. */
function tamper(key: string): string {
  return key.slice(0, -1) + (key.endsWith('A') ? 'B' : 'A');
}

describe('account service over gRPC', () => {
  let service: Awaited<ReturnType<typeof startAccountService>>;
  let accounts: PromiseClient<account.AccountServiceClient>;
  let db: Pool;

  beforeAll(async () => {
    service = await startAccountService();
    db = service.pool;
    accounts = clientOfAllowedCallers(accountProto().AccountService, `127.0.0.1:${service.port}`, accountCallers);
  });

  afterAll(async () => {
    accounts?.close();
    await service?.stop();
  });

  const newClient = (email = `owner-${randomBytes(3).toString('hex')}@example.com`) =>
    accounts.createClient({ email, name: 'Boulangerie Martin' });

  it('when the service has started, then its gRPC health check answers SERVING', async () => {
    const Health = grpc.makeGenericClientConstructor(healthService, 'Health');
    const health = new Health(`127.0.0.1:${service.app.healthPort}`, grpc.credentials.createInsecure()) as unknown as grpc.Client & {
      check(req: { service: string }, cb: grpc.requestCallback<{ status: string }>): void;
    };
    try {
      const status = await new Promise((resolve, reject) =>
        health.check({ service: 'smsgw.account.v1.AccountService' }, (err, res) => (err ? reject(err) : resolve(res?.status))),
      );
      expect(status).toBe('SERVING');
    } finally {
      health.close();
    }
  });

  it('when the gateway asks for a new API key, then it is refused with PERMISSION_DENIED: only the dashboard and the admin tool may', async () => {
    const gateway = createClient<account.AccountServiceClient>(accountProto().AccountService, `127.0.0.1:${service.port}`, {
      tls: grpcTlsFor('gateway'),
    });
    try {
      const { clientId } = await newClient();
      const err = await thrownBy<AppError>(gateway.createApiKey({ clientId, mode: 'KEY_MODE_LIVE' }));
      expect((err.cause as grpc.ServiceError).code).toBe(grpc.status.PERMISSION_DENIED);
      expect((err.cause as grpc.ServiceError).details).toContain('gateway');
    } finally {
      gateway.close();
    }
  });

  it('when a client calls the gRPC port in plaintext, then it is refused', async () => {
    const plain = createClient<account.AccountServiceClient>(accountProto().AccountService, `127.0.0.1:${service.port}`, {
      tls: { mode: 'off' },
      deadlineMs: 2000,
    });
    try {
      const err = await thrownBy<AppError>(plain.getClient({ clientId: 'client_1' }));
      expect((err.cause as grpc.ServiceError).code).toBe(grpc.status.UNAVAILABLE);
    } finally {
      plain.close();
    }
  });

  it('when a client is created, then it gets a client_<digits> id, a live and a test key and a signing secret', async () => {
    const created = await newClient();

    expect(created.clientId).toMatch(/^client_\d+$/);
    expect(created.liveApiKey).toMatch(/^sgw_live_/);
    expect(created.liveApiKey.slice('sgw_live_'.length)).toMatch(KEY_BODY);
    expect(created.testApiKey).toMatch(/^sgw_test_/);
    expect(created.testApiKey.slice('sgw_test_'.length)).toMatch(KEY_BODY);
    expect(created.signingSecret).toMatch(/^whsec_[A-Za-z0-9]{40}$/);
    await expect(accounts.getClient({ clientId: created.clientId })).resolves.toMatchObject({
      clientId: created.clientId,
      name: 'Boulangerie Martin',
      createdAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
    });
    await expect(accounts.getSigningSecret({ clientId: created.clientId })).resolves.toEqual({
      clientId: created.clientId,
      secret: created.signingSecret,
    });
  });

  it('when two clients are created, then their ids and keys all differ', async () => {
    const [a, b] = await Promise.all([newClient(), newClient()]);

    expect(new Set([a.clientId, b.clientId]).size).toBe(2);
    expect(new Set([a.liveApiKey, a.testApiKey, b.liveApiKey, b.testApiKey]).size).toBe(4);
  });

  it('when each key is verified with its client id, then it is accepted with its mode', async () => {
    const created = await newClient();

    const live = await accounts.verifyApiKey({ apiKey: created.liveApiKey, clientId: created.clientId });
    const test = await accounts.verifyApiKey({ apiKey: created.testApiKey, clientId: created.clientId });

    const key = expect.stringMatching(/^key_/);
    // Every country, no special number type, no limit on the key: what a new client starts with.
    const everywhere = { smsCountries: [], otpCountries: [], otpNumberTypes: [], scopes: [], ipRanges: [], dailyQuota: 0 };
    expect(live).toEqual({ clientId: created.clientId, mode: 'KEY_MODE_LIVE', keyId: key, defaultTtlSeconds: 0, ...everywhere });
    expect(test).toEqual({ clientId: created.clientId, mode: 'KEY_MODE_TEST', keyId: key, defaultTtlSeconds: 0, ...everywhere });
    expect(live.keyId).not.toBe(test.keyId);
  });

  it('when a wrong key is presented, then it is refused INVALID_API_KEY', async () => {
    const created = await newClient();
    const wrong = [
      tamper(created.liveApiKey),
      `sgw_live_${'A'.repeat(40)}`,
      created.liveApiKey.replace('sgw_live_', 'sgw_test_'),
      created.liveApiKey.slice(0, -1),
      'not-a-key',
      '',
    ];

    for (const apiKey of wrong) {
      const err = await failure(accounts.verifyApiKey({ apiKey, clientId: created.clientId }));
      expect({ apiKey, code: err.code }).toEqual({ apiKey, code: 'INVALID_API_KEY' });
    }
  });

  it('when a valid key comes with an unknown client id, then it is refused INVALID_CLIENT_ID', async () => {
    const created = await newClient();

    for (const clientId of ['client_1', 'client_999999999999999999', 'someone', '']) {
      const err = await failure(accounts.verifyApiKey({ apiKey: created.liveApiKey, clientId }));
      expect({ clientId, code: err.code }).toEqual({ clientId, code: 'INVALID_CLIENT_ID' });
    }
  });

  it("when a valid key comes with another existing client's id, then it is refused INVALID_API_KEY", async () => {
    const [mine, theirs] = await Promise.all([newClient(), newClient()]);

    const err = await failure(accounts.verifyApiKey({ apiKey: mine.liveApiKey, clientId: theirs.clientId }));

    expect(err.code).toBe('INVALID_API_KEY');
    expect(err.message).toBe('Clé API invalide, expirée ou révoquée.');
  });

  it('when a wrong key comes with an unknown client id, then the key is reported first', async () => {
    const err = await failure(accounts.verifyApiKey({ apiKey: `sgw_live_${'B'.repeat(40)}`, clientId: 'client_1' }));
    expect(err.code).toBe('INVALID_API_KEY');
  });

  it('when a key is revoked, then it is refused while the client’s other key still works', async () => {
    const created = await newClient();

    const revoked = await accounts.revokeApiKey({ apiKey: created.liveApiKey });

    expect(revoked.keyId).toMatch(/^key_/);
    expect(Date.parse(revoked.revokedAt)).not.toBeNaN();
    expect((await failure(accounts.verifyApiKey({ apiKey: created.liveApiKey, clientId: created.clientId }))).code).toBe('INVALID_API_KEY');
    await expect(accounts.verifyApiKey({ apiKey: created.testApiKey, clientId: created.clientId })).resolves.toMatchObject({
      mode: 'KEY_MODE_TEST',
    });
  });

  it('when a key is revoked twice, then the first revocation time is kept', async () => {
    const created = await newClient();

    const first = await accounts.revokeApiKey({ apiKey: created.testApiKey });
    const second = await accounts.revokeApiKey({ apiKey: created.testApiKey });

    expect(second).toEqual(first);
  });

  it('when an unknown or tampered key is revoked, then it is refused INVALID_API_KEY', async () => {
    const created = await newClient();

    expect((await failure(accounts.revokeApiKey({ apiKey: tamper(created.liveApiKey) }))).code).toBe('INVALID_API_KEY');
    expect((await failure(accounts.revokeApiKey({ apiKey: 'sgw_live_nope' }))).code).toBe('INVALID_API_KEY');
    await expect(accounts.verifyApiKey({ apiKey: created.liveApiKey, clientId: created.clientId })).resolves.toMatchObject({
      mode: 'KEY_MODE_LIVE',
    });
  });

  it('when another key is created for a client, then it works alongside the first ones', async () => {
    const created = await newClient();

    const extra = await accounts.createApiKey({ clientId: created.clientId, mode: 'KEY_MODE_TEST', label: 'ci' });

    expect(extra.apiKey).toMatch(/^sgw_test_[A-Za-z0-9]{40}$/);
    await expect(accounts.verifyApiKey({ apiKey: extra.apiKey, clientId: created.clientId })).resolves.toEqual({
      clientId: created.clientId,
      mode: 'KEY_MODE_TEST',
      keyId: extra.keyId,
      defaultTtlSeconds: 0,
      smsCountries: [],
      otpCountries: [],
      otpNumberTypes: [],
      scopes: [],
      ipRanges: [],
      dailyQuota: 0,
    });
    expect((await failure(accounts.createApiKey({ clientId: 'client_1', mode: 'KEY_MODE_LIVE', label: '' }))).code).toBe(
      'INVALID_CLIENT_ID',
    );
  });

  it('when a key is made with scopes, ranges and a quota, then its verification and the list carry them, ranges canonical, its creator, creation and last use', async () => {
    const { user } = await accounts.signUp({
      email: `team-${randomBytes(3).toString('hex')}@example.com`,
      password: 'correct horse battery',
      name: 'Team',
    });
    const clientId = user!.clientId;

    const made = await accounts.createApiKey({
      clientId,
      mode: 'KEY_MODE_TEST',
      label: 'reporting',
      scopes: ['read', 'send', 'read'],
      ipRanges: ['10.1.2.3/8', '2001:DB8:0:0:1::/64', '192.0.2.7'],
      dailyQuota: 500,
      createdByUserId: user!.userId,
    });
    const unused = (await accounts.listApiKeys({ clientId })).keys.find((k) => k.keyId === made.keyId)!;
    expect(Date.now() - Date.parse(unused.createdAt)).toBeLessThan(60_000);
    expect(unused.lastUsedAt).toBe('');

    const verified = await accounts.verifyApiKey({ apiKey: made.apiKey, clientId });
    expect({ scopes: verified.scopes, ipRanges: verified.ipRanges, dailyQuota: verified.dailyQuota }).toEqual({
      scopes: ['send', 'read'],
      ipRanges: ['10.0.0.0/8', '2001:db8::/64', '192.0.2.7/32'],
      dailyQuota: 500,
    });
    const listed = (await accounts.listApiKeys({ clientId })).keys;
    expect(listed.find((k) => k.keyId === made.keyId)).toMatchObject({
      label: 'reporting',
      scopes: ['send', 'read'],
      ipRanges: ['10.0.0.0/8', '2001:db8::/64', '192.0.2.7/32'],
      dailyQuota: 500,
      createdBy: user!.email,
    });
    // A use is recorded beside the verification's answer.
    const used = await eventually(
      async () => (await accounts.listApiKeys({ clientId })).keys.find((k) => k.keyId === made.keyId && k.lastUsedAt !== ''),
      5000,
      'the last use recorded',
    );
    expect(Date.parse(used.lastUsedAt)).toBeGreaterThanOrEqual(Date.parse(unused.createdAt));
    // The keys of the sign-up are the owner's too; an operator's client's keys have no creator.
    expect(listed.filter((k) => k.keyId !== made.keyId).map((k) => [k.createdBy, k.scopes, k.dailyQuota])).toEqual([
      [user!.email, [], 0],
      [user!.email, [], 0],
    ]);
    const operators = await newClient();
    expect((await accounts.listApiKeys({ clientId: operators.clientId })).keys.map((k) => k.createdBy)).toEqual(['', '']);
  });

  it('when a key is asked with an unknown scope, a malformed range and a negative quota, then nothing is made and each field is named', async () => {
    const created = await newClient();

    const refused = await failure(
      accounts.createApiKey({
        clientId: created.clientId,
        mode: 'KEY_MODE_LIVE',
        label: 'bad',
        scopes: ['send', 'admin'],
        ipRanges: ['10.0.0.0/33'],
        dailyQuota: -1,
      }),
    );

    expect(refused.code).toBe('VALIDATION_ERROR');
    expect(refused.details?.map((d) => d.field)).toEqual(['scopes', 'ip_ranges', 'daily_quota']);
    expect((await accounts.listApiKeys({ clientId: created.clientId })).keys).toHaveLength(2);
    const other = await newClient();
    const { user } = await accounts.signUp({
      email: `x-${randomBytes(3).toString('hex')}@example.com`,
      password: 'correct horse battery',
      name: '',
    });
    // A creator who is not the client's own user is refused.
    expect(
      (await failure(accounts.createApiKey({ clientId: other.clientId, mode: 'KEY_MODE_TEST', label: 'x', createdByUserId: user!.userId })))
        .code,
    ).toBe('NOT_FOUND');
  });

  it('when keys are made and revoked, then the audit log holds each action with its actor, address and key, newest first, filtered, and its rows cannot be changed', async () => {
    const { user } = await accounts.signUp({
      email: `audit-${randomBytes(3).toString('hex')}@example.com`,
      password: 'correct horse battery',
      name: '',
    });
    const clientId = user!.clientId;
    const made = await accounts.createApiKey({
      clientId,
      mode: 'KEY_MODE_TEST',
      label: 'ci',
      scopes: ['send'],
      dailyQuota: 10,
      createdByUserId: user!.userId,
      actorAddress: '203.0.113.9',
    });
    await accounts.revokeApiKeyById({ clientId, keyId: made.keyId, userId: user!.userId, actorAddress: '203.0.113.10' });
    await accounts.revokeApiKey({ apiKey: made.apiKey });

    const { events } = await accounts.listAuditEvents({ clientId });

    const signUpKeys = (await accounts.listApiKeys({ clientId })).keys.filter((k) => k.keyId !== made.keyId).map((k) => k.keyId);
    expect(events.slice(0, 3).map((e) => [e.action, e.actor, e.address, e.target])).toEqual([
      ['key.revoked', 'operator', '', made.keyId],
      ['key.revoked', user!.email, '203.0.113.10', made.keyId],
      ['key.created', user!.email, '203.0.113.9', made.keyId],
    ]);
    // The sign-up's two keys, made with the account (in one transaction: the same time).
    expect(
      events
        .slice(3)
        .map((e) => [e.action, e.actor, e.target])
        .sort(),
    ).toEqual(signUpKeys.map((k) => ['key.created', user!.email, k]).sort());
    expect(JSON.parse(events[2]!.detailsJson)).toEqual({ label: 'ci', mode: 'test', scopes: ['send'], ip_ranges: [], daily_quota: 10 });
    expect((await accounts.listAuditEvents({ clientId, action: 'key.created' })).events.map((e) => e.eventId)).toEqual(
      events.filter((e) => e.action === 'key.created').map((e) => e.eventId),
    );

    expect(
      (await accounts.listAuditEvents({ clientId, limit: 1, beforeEventId: events[0]!.eventId })).events.map((e) => e.eventId),
    ).toEqual([events[1]!.eventId]);
    expect((await accounts.listAuditEvents({ clientId, from: new Date(Date.now() + 60_000).toISOString() })).events).toEqual([]);
    expect((await failure(accounts.listAuditEvents({ clientId, action: 'key.deleted' }))).code).toBe('VALIDATION_ERROR');
    // Another client's log is its own.
    const other = await accounts.listAuditEvents({ clientId: (await newClient()).clientId });
    expect(other.events.map((e) => [e.action, e.actor])).toEqual([
      ['key.created', 'operator'],
      ['key.created', 'operator'],
    ]);
    // Append-only: neither the service nor anyone with its database user changes or deletes a recent row.
    await expect(db.query("UPDATE audit_events SET actor = 'someone else' WHERE client_id = $1", [clientId])).rejects.toThrow(
      /append-only/,
    );
    await expect(db.query('DELETE FROM audit_events WHERE client_id = $1', [clientId])).rejects.toThrow(/append-only/);
  });

  it('when an audit record is over a year old, then it is neither listed nor kept once the client records again', async () => {
    const created = await newClient();
    await db.query(
      "INSERT INTO audit_events (client_id, at, actor, action, target) VALUES ($1, now() - interval '13 months', 'operator', 'key.revoked', 'key_old')",
      [created.clientId],
    );
    expect((await accounts.listAuditEvents({ clientId: created.clientId })).events.map((e) => e.target)).not.toContain('key_old');

    await accounts.createApiKey({ clientId: created.clientId, mode: 'KEY_MODE_TEST', label: 'new' });

    const { rows } = await db.query<{ target: string }>('SELECT target FROM audit_events WHERE client_id = $1', [created.clientId]);
    expect(rows.map((r) => r.target)).not.toContain('key_old');
    // The client's two first keys and the new one.
    expect(rows).toHaveLength(3);
  });

  it('when keys are stored, then no plain key (nor its secret part) appears in any text column of the database', async () => {
    const created = await newClient();
    const extra = await accounts.createApiKey({ clientId: created.clientId, mode: 'KEY_MODE_LIVE', label: 'extra' });
    const plain = [created.liveApiKey, created.testApiKey, extra.apiKey];

    const { rows: columns } = await db.query<{ table_name: string; column_name: string; data_type: string }>(
      `SELECT table_name, column_name, data_type FROM information_schema.columns
       WHERE table_schema = $1 AND data_type IN ('text', 'character varying', 'character', 'bytea', 'jsonb', 'json')`,
      [service.schema],
    );
    expect(columns.map((c) => `${c.table_name}.${c.column_name}`)).toEqual(
      expect.arrayContaining(['api_keys.lookup', 'api_keys.key_hash']),
    );
    for (const { table_name, column_name, data_type } of columns) {
      // Bytes are read as they are, so a key stored as bytea would show too.
      const value = data_type === 'bytea' ? `encode(${quoteIdent(column_name)}, 'escape')` : `${quoteIdent(column_name)}::text`;
      const { rows } = await db.query<{ value: string | null }>(`SELECT ${value} AS value FROM ${quoteIdent(table_name)}`);
      for (const { value } of rows) {
        for (const key of plain) {
          expect(value ?? '').not.toContain(key);
          expect(value ?? '').not.toContain(key.slice(-28));
        }
      }
    }
    const { rows: keys } = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM api_keys WHERE client_id = $1', [
      created.clientId,
    ]);
    expect(keys[0]!.n).toBe(3);
  });

  it('when the e-mail address is invalid, then the client is refused VALIDATION_ERROR naming the field', async () => {
    for (const email of ['', 'not-an-email', 'a@b', 'two@@example.com', 'spaces in@example.com', `${'x'.repeat(250)}@example.com`]) {
      const err = await failure(accounts.createClient({ email, name: '' }));
      expect({ email, code: err.code }).toEqual({ email, code: 'VALIDATION_ERROR' });
      expect(err.details).toEqual([{ field: 'email', code: 'INVALID_EMAIL', message: 'Adresse e-mail invalide.' }]);
    }
  });

  it('when an unknown client is looked up, then it is INVALID_CLIENT_ID', async () => {
    expect((await failure(accounts.getClient({ clientId: 'client_42' }))).code).toBe('INVALID_CLIENT_ID');
    expect((await failure(accounts.getSigningSecret({ clientId: 'client_42' }))).code).toBe('INVALID_CLIENT_ID');
  });

  const signUp = (email = `owner-${randomBytes(3).toString('hex')}@example.com`, password = 'the first password') =>
    accounts.signUp({ email, password, name: 'Fleuriste' });

  it('when an owner signs up, then the alert address is unverified until its link is used, and the link works once', async () => {
    const { user } = await signUp();
    const clientId = user!.clientId;
    expect((await accounts.getClient({ clientId })).emailVerified).toBe(false);

    const link = await accounts.issueEmailVerification({ clientId });
    expect(link).toMatchObject({ token: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/), email: user!.email });
    // Only its hash is stored.
    const stored = await db.query('SELECT token_hash FROM email_tokens WHERE client_id = $1', [clientId]);
    expect(stored.rows[0].token_hash).toHaveLength(32);
    expect(JSON.stringify(stored.rows)).not.toContain(link.token);

    expect(await accounts.verifyEmail({ token: link.token })).toEqual({ verified: true, clientId });
    expect((await accounts.getClient({ clientId })).emailVerified).toBe(true);
    expect((await accounts.verifyEmail({ token: link.token })).verified).toBe(false);
    expect((await accounts.issueEmailVerification({ clientId })).token).toBe('');
    // An operator's client is verified from the start.
    expect((await accounts.getClient({ clientId: (await newClient()).clientId })).emailVerified).toBe(true);
  });

  it('when the alert address changes, then it is unverified again, and a link sent to the old address does not verify the new one', async () => {
    const { user } = await signUp();
    const clientId = user!.clientId;
    // The account proves its owner's address first: only then may its alert address change.
    await accounts.verifyEmail({ token: (await accounts.issueEmailVerification({ clientId })).token });
    await accounts.updateClient({ clientId, email: `new-${user!.email}`, name: '' });
    const old = await accounts.issueEmailVerification({ clientId });
    expect(old.email).toBe(`new-${user!.email}`);
    await accounts.updateClient({ clientId, email: `newer-${user!.email}`, name: '' });
    expect((await accounts.verifyEmail({ token: old.token })).verified).toBe(false);
    const fresh = await accounts.issueEmailVerification({ clientId });
    expect(fresh.email).toBe(`newer-${user!.email}`);
    expect((await accounts.verifyEmail({ token: fresh.token })).verified).toBe(true);
    await accounts.updateClient({ clientId, email: '', name: 'Renamed' });
    expect((await accounts.getClient({ clientId })).emailVerified).toBe(true);
    await accounts.updateClient({ clientId, email: `other-${user!.email}`, name: '' });
    expect((await accounts.getClient({ clientId })).emailVerified).toBe(false);
    // The account stays verified: its keys keep working while the new alert address waits for its link.
    expect((await accounts.getClient({ clientId })).accountVerified).toBe(true);
  });

  it("when an owner signs up, then its live key is refused ACCOUNT_NOT_VERIFIED until the owner's address is confirmed, its test key works at once", async () => {
    const { user, liveApiKey, testApiKey } = await signUp();
    const clientId = user!.clientId;
    expect((await accounts.getClient({ clientId })).accountVerified).toBe(false);
    expect((await failure(accounts.verifyApiKey({ apiKey: liveApiKey, clientId }))).code).toBe('ACCOUNT_NOT_VERIFIED');
    expect((await accounts.verifyApiKey({ apiKey: testApiKey, clientId })).mode).toBe('KEY_MODE_TEST');
    // The order of the specification's checks comes first: another client's id is still INVALID_API_KEY.
    expect((await failure(accounts.verifyApiKey({ apiKey: liveApiKey, clientId: (await newClient()).clientId }))).code).toBe(
      'INVALID_API_KEY',
    );

    expect((await accounts.verifyEmail({ token: (await accounts.issueEmailVerification({ clientId })).token })).verified).toBe(true);

    expect((await accounts.getClient({ clientId })).accountVerified).toBe(true);
    expect((await accounts.verifyApiKey({ apiKey: liveApiKey, clientId })).mode).toBe('KEY_MODE_LIVE');
  });

  it('when an account not verified yet changes its alert address, then it is refused, naming the field', async () => {
    const { user } = await signUp();
    const err = await failure(accounts.updateClient({ clientId: user!.clientId, email: `elsewhere-${user!.email}`, name: '' }));
    expect(err.code).toBe('VALIDATION_ERROR');
    expect(err.details).toEqual([expect.objectContaining({ field: 'email', code: 'ACCOUNT_NOT_VERIFIED' })]);
    expect((await accounts.getClient({ clientId: user!.clientId })).email).toBe(user!.email);
  });

  it("when an account of before has another alert address and is not verified, then its link goes to the owner's address and proves the account only", async () => {
    const { user } = await signUp();
    const clientId = user!.clientId;
    await db.query('UPDATE clients SET email = $2 WHERE client_id = $1', [clientId, `alerts-${user!.email}`]);
    const link = await accounts.issueEmailVerification({ clientId });
    expect(link.email).toBe(user!.email);
    expect((await accounts.verifyEmail({ token: link.token })).verified).toBe(true);
    expect(await accounts.getClient({ clientId })).toMatchObject({ accountVerified: true, emailVerified: false });
  });

  it('when the operator vouches for an account, then its live key works; a client the operator made counts as verified from the start', async () => {
    const { user, liveApiKey } = await signUp();
    const clientId = user!.clientId;
    expect((await accounts.markAccountVerified({ clientId })).accountVerified).toBe(true);
    expect((await accounts.verifyApiKey({ apiKey: liveApiKey, clientId })).mode).toBe('KEY_MODE_LIVE');
    expect((await accounts.getClient({ clientId: (await newClient()).clientId })).accountVerified).toBe(true);
    expect((await failure(accounts.markAccountVerified({ clientId: 'client_42' }))).code).toBe('INVALID_CLIENT_ID');
  });

  it("when a password reset is the account's first proof of its address, then every key, the signing secret, the alert address and the links of before are replaced, and the page is told so; a later reset revokes nothing", async () => {
    const email = `squatted-${randomBytes(3).toString('hex')}@example.com`;
    const squatter = await signUp(email, 'the squatter password');
    const clientId = squatter.user!.clientId;
    const extra = await accounts.createApiKey({ clientId, mode: 'KEY_MODE_TEST', label: 'squatter' });
    const secretBefore = (await accounts.getSigningSecret({ clientId })).secret;
    const pendingVerification = await accounts.issueEmailVerification({ clientId });

    const link = await accounts.issuePasswordReset({ email });
    const reset = await accounts.resetPassword({ token: link.token, newPassword: 'the owner password' });

    expect(reset).toMatchObject({ user: { email, clientId }, firstProof: true, revokedKeys: 3 });
    for (const apiKey of [squatter.liveApiKey, squatter.testApiKey, extra.apiKey]) {
      expect((await failure(accounts.verifyApiKey({ apiKey, clientId }))).code).toBe('INVALID_API_KEY');
    }
    expect((await accounts.getSigningSecret({ clientId })).secret).not.toBe(secretBefore);
    expect(await accounts.getClient({ clientId })).toMatchObject({ email, emailVerified: true, accountVerified: true });
    expect((await accounts.verifyEmail({ token: pendingVerification.token })).verified).toBe(false);
    // The audit log holds each revocation, by the owner whose reset proved the address.
    const revocations = (await accounts.listAuditEvents({ clientId, action: 'key.revoked' })).events;
    expect(revocations.map((e) => [e.actor, JSON.parse(e.detailsJson)]).sort()).toEqual([
      [email, { reason: 'first_proof' }],
      [email, { reason: 'first_proof' }],
      [email, { reason: 'first_proof' }],
    ]);
    // Keys made after the proof stay; a later reset is no proof any more.
    const fresh = await accounts.createApiKey({ clientId, mode: 'KEY_MODE_LIVE', label: 'owner' });
    const again = await accounts.resetPassword({
      token: (await accounts.issuePasswordReset({ email })).token,
      newPassword: 'another password',
    });
    expect(again).toMatchObject({ firstProof: false, revokedKeys: 0 });
    expect((await accounts.verifyApiKey({ apiKey: fresh.apiKey, clientId })).mode).toBe('KEY_MODE_LIVE');
  });

  it('when a password is reset with its link, then the new password signs in, the old does not, and the link (or an expired one) is refused', async () => {
    const email = `reset-${randomBytes(3).toString('hex')}@example.com`;
    await signUp(email, 'the first password');
    expect(await accounts.issuePasswordReset({ email: 'nobody-here@example.com' })).toEqual({ token: '', email: '', expiresAt: '' });

    const link = await accounts.issuePasswordReset({ email: email.toUpperCase() });
    expect(link.email).toBe(email);
    const ttl = Date.parse(link.expiresAt) - Date.now();
    expect(ttl).toBeGreaterThan(29 * 60_000);
    expect(ttl).toBeLessThanOrEqual(30 * 60_000);
    expect((await failure(accounts.resetPassword({ token: link.token, newPassword: 'short' }))).code).toBe('VALIDATION_ERROR');

    expect((await accounts.resetPassword({ token: link.token, newPassword: 'the second password' })).user!.email).toBe(email);
    expect((await accounts.signIn({ email, password: 'the second password' })).email).toBe(email);
    expect((await accounts.signIn({ email, password: 'the first password' })).userId).toBe('');
    expect((await accounts.resetPassword({ token: link.token, newPassword: 'a third password' })).user!.userId).toBe('');

    const late = await accounts.issuePasswordReset({ email });
    await db.query(`UPDATE email_tokens SET expires_at = now() - interval '1 second' WHERE purpose = 'reset_password' AND used_at IS NULL`);
    expect((await accounts.resetPassword({ token: late.token, newPassword: 'a third password' })).user!.userId).toBe('');
    expect((await accounts.signIn({ email, password: 'the second password' })).email).toBe(email);
  });
});
