import { randomBytes } from 'node:crypto';
import { AppError, type PromiseClient } from '@smsgw/platform';
import { accountProto, type account } from '@smsgw/proto';
import { clientOfAllowedCallers, startServiceUnderTest, thrownBy } from '@smsgw/testing';
import { loadAccountConfig } from '../src/config';
import { accountCallers } from '../src/grpc/account.handlers';
import { start } from '../src/main';

const startAccountService = () => startServiceUnderTest({ name: 'account', loadConfig: loadAccountConfig, start });

describe('SMPP credentials (issue 40)', () => {
  let service: Awaited<ReturnType<typeof startAccountService>>;
  let accounts: PromiseClient<account.AccountServiceClient>;

  beforeAll(async () => {
    service = await startAccountService();
    accounts = clientOfAllowedCallers(accountProto().AccountService, `127.0.0.1:${service.port}`, accountCallers);
  });

  afterAll(async () => {
    accounts?.close();
    await service?.stop();
  });

  const newClient = () => accounts.createClient({ email: `smpp-${randomBytes(3).toString('hex')}@example.com`, name: 'SMPP' });
  const create = (clientId: string, bindType: account.SmppBindType, mode: account.KeyMode = 'KEY_MODE_LIVE', deviceId = '') =>
    accounts.createSmppCredential({ clientId, bindType, mode, label: 'CRM', deviceId, userId: '', actorAddress: '' });
  const verify = (systemId: string, password: string, bindType: account.SmppBindType) =>
    accounts.verifySmppBind({ systemId, password, bindType });

  it('when a credential is made, then its password is shown once, 8 characters, and a bind with it gets the client, mode and phone', async () => {
    const client = await newClient();
    const created = await create(client.clientId, 'SMPP_BIND_TYPE_TRANSCEIVER', 'KEY_MODE_TEST', 'device_1');
    expect(created.password).toMatch(/^[A-Za-z0-9]{8}$/);
    expect(created.credential).toMatchObject({ clientId: client.clientId, bindType: 'SMPP_BIND_TYPE_TRANSCEIVER', mode: 'KEY_MODE_TEST' });
    expect(created.credential!.systemId).toMatch(/^smpp\d{11}$/);
    const bound = await verify(created.credential!.systemId, created.password, 'SMPP_BIND_TYPE_RECEIVER');
    expect(bound.credential).toMatchObject({ clientId: client.clientId, deviceId: 'device_1', mode: 'KEY_MODE_TEST' });
    const [listed] = (await accounts.listSmppCredentials({ clientId: client.clientId })).credentials;
    expect(listed).toMatchObject({ credentialId: created.credential!.credentialId, label: 'CRM', revokedAt: '' });
    expect(JSON.stringify(listed)).not.toContain(created.password);
  });

  it('when the password is wrong, the system id unknown or the credential revoked, then the bind is refused alike', async () => {
    const client = await newClient();
    const created = await create(client.clientId, 'SMPP_BIND_TYPE_TRANSMITTER');
    const systemId = created.credential!.systemId;
    for (const [id, password] of [
      [systemId, 'wrong123'],
      ['smpp00000000000', created.password],
    ] as const) {
      expect(await thrownBy(verify(id, password, 'SMPP_BIND_TYPE_TRANSMITTER'))).toMatchObject({ code: 'INVALID_API_KEY' });
    }
    const revoked = await accounts.revokeSmppCredential({
      clientId: client.clientId,
      credentialId: created.credential!.credentialId,
      userId: '',
      actorAddress: '',
    });
    expect(revoked.revokedAt).not.toBe('');
    const err = await thrownBy(verify(systemId, created.password, 'SMPP_BIND_TYPE_TRANSMITTER'));
    expect(err).toBeInstanceOf(AppError);
    expect(err).toMatchObject({ code: 'INVALID_API_KEY' });
  });

  it('when a transmitter credential binds as a receiver, then SCOPE_NOT_ALLOWED; another client cannot revoke it', async () => {
    const client = await newClient();
    const other = await newClient();
    const created = await create(client.clientId, 'SMPP_BIND_TYPE_TRANSMITTER');
    expect(await thrownBy(verify(created.credential!.systemId, created.password, 'SMPP_BIND_TYPE_RECEIVER'))).toMatchObject({
      code: 'SCOPE_NOT_ALLOWED',
    });
    expect(
      await thrownBy(
        accounts.revokeSmppCredential({
          clientId: other.clientId,
          credentialId: created.credential!.credentialId,
          userId: '',
          actorAddress: '',
        }),
      ),
    ).toMatchObject({ code: 'NOT_FOUND' });
  });

  it('when a credential is made and revoked by a member, then only its hash is stored, and the audit log has both with the member and address', async () => {
    const { user } = await accounts.signUp({
      email: `smpp-owner-${randomBytes(3).toString('hex')}@example.com`,
      password: 'correct horse battery',
      name: 'CRM',
    });
    const clientId = user!.clientId;
    const created = await accounts.createSmppCredential({
      clientId,
      bindType: 'SMPP_BIND_TYPE_TRANSCEIVER',
      mode: 'KEY_MODE_TEST',
      label: 'CRM',
      deviceId: '',
      userId: user!.userId,
      actorAddress: '203.0.113.20',
    });
    const credentialId = created.credential!.credentialId;
    await accounts.revokeSmppCredential({ clientId, credentialId, userId: user!.userId, actorAddress: '203.0.113.21' });

    const { rows } = await service.pool.query<Record<string, unknown>>('SELECT * FROM smpp_credentials WHERE credential_id = $1', [
      credentialId,
    ]);
    expect(JSON.stringify(rows[0])).not.toContain(created.password);
    expect(rows[0]!.password_hash).toBeInstanceOf(Buffer);
    const { events } = await accounts.listAuditEvents({ clientId });
    expect(events.filter((e) => e.action.startsWith('smpp.')).map((e) => [e.action, e.actor, e.address, e.target])).toEqual([
      ['smpp.revoked', user!.email, '203.0.113.21', credentialId],
      ['smpp.created', user!.email, '203.0.113.20', credentialId],
    ]);
    expect(JSON.parse(events.find((e) => e.action === 'smpp.created')!.detailsJson)).toMatchObject({ mode: 'test', label: 'CRM' });
  });

  it('when the bind type is missing, then VALIDATION_ERROR names bind_type', async () => {
    const client = await newClient();
    const err = await thrownBy(create(client.clientId, 'SMPP_BIND_TYPE_UNSPECIFIED'));
    expect(err).toMatchObject({ code: 'VALIDATION_ERROR', details: [{ field: 'bind_type' }] });
  });
});
