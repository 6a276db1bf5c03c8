import { randomBytes } from 'node:crypto';
import { AppError, type Pool, type PromiseClient } from '@smsgw/platform';
import { accountProto, type account } from '@smsgw/proto';
import { clientOfAllowedCallers, startServiceUnderTest, thrownBy } from '@smsgw/testing';
import { loadAccountConfig } from '../src/config';
import { AuditRepository } from '../src/data/audit.repository';
import { codeAt, stepAt } from '../src/domain/totp';
import { accountCallers } from '../src/grpc/account.handlers';
import { start } from '../src/main';

const PASSWORD = 'correct horse battery';
const startAccountService = () =>
  startServiceUnderTest({ name: 'account', loadConfig: loadAccountConfig, start, env: { DATABASE_POOL_MAX: '4' } });

/** RFC 4648 base32, as an authenticator app reads the secret. */
function fromBase32(text: string): Buffer {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  let bits = 0;
  let value = 0;
  const out: number[] = [];
  for (const c of text) {
    value = (value << 5) | alphabet.indexOf(c);
    bits += 5;
    if (bits >= 8) {
      out.push((value >>> (bits - 8)) & 0xff);
      bits -= 8;
    }
  }
  return Buffer.from(out);
}

describe('members, roles and two-factor sign-in over gRPC', () => {
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

  const email = (label: string) => `${label}-${randomBytes(3).toString('hex')}@example.com`;

  async function verifiedOwner(): Promise<account.User__Output> {
    const { user } = await accounts.signUp({ email: email('owner'), password: PASSWORD, name: 'Atelier' });
    await accounts.markAccountVerified({ clientId: user!.clientId });
    return user!;
  }

  async function member(owner: account.User__Output, role: string): Promise<account.User__Output> {
    const invited = await accounts.inviteMember({ clientId: owner.clientId, email: email(role), role, userId: owner.userId });
    return accounts.acceptInvitation({ token: invited.token, password: PASSWORD, actorAddress: '198.51.100.7' });
  }

  it('when an owner invites a member, then the link tells the invitation, makes the member once with its role, and the log has both', async () => {
    const { user: unverified } = await accounts.signUp({ email: email('new'), password: PASSWORD, name: '' });
    const refused = await thrownBy<AppError>(
      accounts.inviteMember({ clientId: unverified!.clientId, email: email('x'), role: 'admin', userId: unverified!.userId }),
    );
    expect(refused.code).toBe('ACCOUNT_NOT_VERIFIED');

    const owner = await verifiedOwner();
    expect(owner.role).toBe('owner');
    const bad = await thrownBy<AppError>(
      accounts.inviteMember({ clientId: owner.clientId, email: email('x'), role: 'boss', userId: owner.userId }),
    );
    expect(bad.details?.[0]).toMatchObject({ field: 'role' });
    const taken = await thrownBy<AppError>(
      accounts.inviteMember({ clientId: owner.clientId, email: owner.email, role: 'admin', userId: owner.userId }),
    );
    expect(taken.details?.[0]).toMatchObject({ code: 'EMAIL_TAKEN' });

    const address = email('support');
    const invited = await accounts.inviteMember({
      clientId: owner.clientId,
      email: address,
      role: 'support',
      userId: owner.userId,
      actorAddress: '203.0.113.5',
    });
    expect(invited.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(await accounts.getInvitation({ token: invited.token })).toMatchObject({
      email: address,
      role: 'support',
      clientName: 'Atelier',
    });
    expect((await thrownBy<AppError>(accounts.acceptInvitation({ token: invited.token, password: 'short' }))).code).toBe(
      'VALIDATION_ERROR',
    );

    const joined = await accounts.acceptInvitation({ token: invited.token, password: PASSWORD, actorAddress: '198.51.100.7' });
    expect(joined).toMatchObject({ email: address, clientId: owner.clientId, role: 'support' });
    expect((await accounts.acceptInvitation({ token: invited.token, password: PASSWORD })).userId).toBe('');
    expect((await accounts.getInvitation({ token: invited.token })).email).toBe('');
    expect((await accounts.signIn({ email: address, password: PASSWORD })).role).toBe('support');

    const listed = await accounts.listMembers({ clientId: owner.clientId });
    expect(listed.members.map((m) => [m.email, m.role])).toEqual([
      [owner.email, 'owner'],
      [address, 'support'],
    ]);
    const { events } = await accounts.listAuditEvents({ clientId: owner.clientId, actor: '' });
    expect(events.slice(0, 3).map((e) => [e.action, e.actor, e.address, e.target])).toEqual([
      ['user.signed_in', address, '', address],
      ['member.joined', address, '198.51.100.7', address],
      ['member.invited', owner.email, '203.0.113.5', address],
    ]);
    // Only owners invite.
    const byMember = await thrownBy<AppError>(
      accounts.inviteMember({ clientId: owner.clientId, email: email('y'), role: 'admin', userId: joined.userId }),
    );
    expect(byMember.code).toBe('ROLE_NOT_ALLOWED');
  });

  it('when roles change and members leave, then the account always keeps an owner, and a removed member is gone at once', async () => {
    const owner = await verifiedOwner();
    expect(
      (
        await thrownBy<AppError>(
          accounts.changeMemberRole({ clientId: owner.clientId, memberUserId: owner.userId, role: 'admin', userId: owner.userId }),
        )
      ).code,
    ).toBe('LAST_OWNER');
    expect(
      (await thrownBy<AppError>(accounts.removeMember({ clientId: owner.clientId, memberUserId: owner.userId, userId: owner.userId })))
        .code,
    ).toBe('LAST_OWNER');

    const admin = await member(owner, 'admin');
    await accounts.changeMemberRole({ clientId: owner.clientId, memberUserId: admin.userId, role: 'owner', userId: owner.userId });
    expect((await accounts.getUser({ userId: admin.userId })).role).toBe('owner');
    // Two owners: the first may now step down, and then not the other.
    await accounts.changeMemberRole({ clientId: owner.clientId, memberUserId: owner.userId, role: 'developer', userId: owner.userId });
    expect(
      (await thrownBy<AppError>(accounts.removeMember({ clientId: owner.clientId, memberUserId: admin.userId, userId: admin.userId })))
        .code,
    ).toBe('LAST_OWNER');

    // A developer may leave by itself, and is then unknown: no user, no sign-in.
    await accounts.removeMember({ clientId: owner.clientId, memberUserId: owner.userId, userId: owner.userId });
    expect((await thrownBy<AppError>(accounts.getUser({ userId: owner.userId }))).code).toBe('NOT_FOUND');
    expect((await accounts.signIn({ email: owner.email, password: PASSWORD })).userId).toBe('');
    // Another account's member is not this account's to change.
    const stranger = await verifiedOwner();
    expect(
      (
        await thrownBy<AppError>(
          accounts.changeMemberRole({ clientId: stranger.clientId, memberUserId: admin.userId, role: 'support', userId: stranger.userId }),
        )
      ).code,
    ).toBe('NOT_FOUND');
    // Its address may be invited again (to any account), and the keys it made still name it.
    const again = await accounts.inviteMember({
      clientId: stranger.clientId,
      email: owner.email,
      role: 'support',
      userId: stranger.userId,
    });
    expect((await accounts.acceptInvitation({ token: again.token, password: PASSWORD })).email).toBe(owner.email);
    const creators = (await accounts.listApiKeys({ clientId: owner.clientId })).keys.map((k) => k.createdBy);
    expect(creators).toEqual([owner.email, owner.email]);

    const actions = (await accounts.listAuditEvents({ clientId: owner.clientId, action: 'member.role_changed' })).events;
    expect(actions.map((e) => [e.actor, e.target, JSON.parse(e.detailsJson)])).toEqual([
      [owner.email, owner.email, { from: 'owner', to: 'developer' }],
      [owner.email, admin.email, { from: 'admin', to: 'owner' }],
    ]);
    expect((await accounts.listAuditEvents({ clientId: owner.clientId, actor: admin.email })).events.map((e) => e.action)).toEqual([
      'member.joined',
    ]);
  });

  it('when a member enrols TOTP, then sign-in needs a code of its secret: each step once, each recovery code once, a wrong code refused and logged', async () => {
    const owner = await verifiedOwner();
    const enrolment = await accounts.beginTotpEnrolment({ userId: owner.userId });
    expect(enrolment.otpauthUri).toContain(`secret=${enrolment.secret}`);
    const secret = fromBase32(enrolment.secret);
    const now = stepAt(Date.now());
    expect(
      (await accounts.confirmTotpEnrolment({ userId: owner.userId, code: '000000' === codeAt(secret, now) ? '111111' : '000000' }))
        .recoveryCodes,
    ).toEqual([]);
    const { recoveryCodes } = await accounts.confirmTotpEnrolment({ userId: owner.userId, code: codeAt(secret, now) });
    expect(recoveryCodes).toHaveLength(10);
    const { rows } = await db.query<{ code_hash: Buffer }>('SELECT code_hash FROM recovery_codes WHERE user_id = $1', [owner.userId]);
    expect(rows).toHaveLength(10);
    expect(JSON.stringify(rows)).not.toContain(recoveryCodes[0]!.replace('-', ''));

    const signedIn = await accounts.signIn({ email: owner.email, password: PASSWORD, actorAddress: '192.0.2.1' });
    expect(signedIn.twoFactor).toBe(true);
    const verify = (code: string) => accounts.verifySecondFactor({ userId: owner.userId, code, actorAddress: '192.0.2.1' });
    // The enrolment's step is taken: its code does not open a session again.
    expect((await verify(codeAt(secret, now))).valid).toBe(false);
    expect((await verify(codeAt(secret, now + 1))).valid).toBe(true);
    expect((await verify(codeAt(secret, now + 1))).valid).toBe(false);
    expect((await verify(recoveryCodes[3]!.toUpperCase())).valid).toBe(true);
    expect((await verify(recoveryCodes[3]!)).valid).toBe(false);
    expect((await thrownBy<AppError>(accounts.beginTotpEnrolment({ userId: owner.userId }))).code).toBe('VALIDATION_ERROR');

    const events = (await accounts.listAuditEvents({ clientId: owner.clientId })).events.filter((e) => e.action !== 'key.created');
    expect(events.map((e) => [e.action, JSON.parse(e.detailsJson)])).toEqual([
      ['user.sign_in_failed', { second_factor: true }],
      ['user.signed_in', { second_factor: 'recovery_code' }],
      ['user.sign_in_failed', { second_factor: true }],
      ['user.signed_in', { second_factor: 'totp' }],
      ['user.sign_in_failed', { second_factor: true }],
      ['two_factor.enabled', {}],
    ]);

    // An owner requires it of every member: a member without it is told so with its user.
    await accounts.setTwoFactorRequired({ clientId: owner.clientId, required: true, userId: owner.userId });
    const dev = await member(owner, 'developer');
    expect(await accounts.getUser({ userId: dev.userId })).toMatchObject({ twoFactor: false, twoFactorRequired: true });
    expect(
      (await thrownBy<AppError>(accounts.setTwoFactorRequired({ clientId: owner.clientId, required: false, userId: dev.userId }))).code,
    ).toBe('ROLE_NOT_ALLOWED');
  });

  it('when the audit log is truncated, then the database refuses; the purge takes only rows past a year', async () => {
    const owner = await verifiedOwner();
    await expect(db.query('TRUNCATE audit_events')).rejects.toThrow(/append-only/);
    await db.query(
      "INSERT INTO audit_events (client_id, at, actor, action, target) VALUES ($1, now() - interval '366 days', 'operator', 'key.revoked', 'key_old')",
      [owner.clientId],
    );
    expect(await new AuditRepository(db).purge()).toBeGreaterThanOrEqual(1);
    const { rows } = await db.query<{ target: string }>('SELECT target FROM audit_events WHERE client_id = $1', [owner.clientId]);
    expect(rows.map((r) => r.target)).not.toContain('key_old');
    expect(rows.length).toBeGreaterThan(0);
  });
});
