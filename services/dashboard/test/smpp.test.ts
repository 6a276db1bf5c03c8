import { AppError } from '@smsgw/platform';
import type { account } from '@smsgw/proto';
import { PASSWORD, startFleetWorld, type FleetWorld } from './support/fleet-world';

/**
 * The SMPP page: the client's credentials (ListSmppCredentials), a new one with the password asked
 * again and its own password shown once (CreateSmppCredential), a revocation (stand-ins).
 */
describe('the SMPP page', () => {
  let world: FleetWorld;
  const made: account.SmppCredential__Output[] = [];

  beforeAll(async () => {
    world = await startFleetWorld({
      account: {
        ListSmppCredentials: async (req: account.GetClientRequest__Output) => ({
          credentials: made.filter((c) => c.clientId === req.clientId),
        }),
        CreateSmppCredential: async (req: account.CreateSmppCredentialRequest__Output) => {
          const credential: account.SmppCredential__Output = {
            credentialId: `smpp_${made.length + 1}`,
            clientId: req.clientId,
            systemId: `smpp0000000000${made.length + 1}`,
            bindType: req.bindType,
            mode: req.mode,
            label: req.label,
            deviceId: req.deviceId,
            createdAt: '2026-11-29T01:00:00.000Z',
            lastBoundAt: '',
            revokedAt: '',
          };
          made.unshift(credential);
          return { credential, password: 'Pw8chars' };
        },
        RevokeSmppCredential: async (req: account.RevokeSmppCredentialRequest__Output) => {
          const c = made.find((m) => m.credentialId === req.credentialId && m.clientId === req.clientId);
          if (!c) throw new AppError('NOT_FOUND');
          c.revokedAt = '2026-11-29T02:00:00.000Z';
          return c;
        },
      },
    });
  }, 60_000);

  afterAll(async () => {
    await world?.stop();
  });

  const calls = <T>(name: string) => (world.calls.account[name] ?? []) as T[];

  it('when a credential is made with the password, then its password is shown once and it is listed, without it', async () => {
    const browser = await world.signedIn('a');
    await browser.get('/smpp');

    const res = await browser.post('/smpp', {
      label: 'CRM',
      bind_type: 'transmitter',
      mode: 'test',
      device_id: 'device_a1',
      password: PASSWORD,
    });

    expect(res.status).toBe(200);
    expect(res.text).toContain('Pw8chars');
    expect(res.text).toContain('data-system-id="smpp00000000001"');
    expect(calls<account.CreateSmppCredentialRequest__Output>('CreateSmppCredential')).toEqual([
      expect.objectContaining({
        clientId: 'client_a',
        bindType: 'SMPP_BIND_TYPE_TRANSMITTER',
        mode: 'KEY_MODE_TEST',
        label: 'CRM',
        deviceId: 'device_a1',
        userId: 'user_a',
      }),
    ]);
    const again = await browser.get('/smpp');
    expect(again.text).toContain('smpp00000000001');
    expect(again.text).not.toContain('Pw8chars');
    expect(again.text).toContain('href="/smpp" aria-current="page"');
  });

  it("when the password is wrong or the phone another client's, then nothing is made", async () => {
    const browser = await world.signedIn('a');
    await browser.get('/smpp');
    const before = calls('CreateSmppCredential').length;

    const wrong = await browser.post('/smpp', { label: 'CRM', bind_type: 'receiver', mode: 'live', device_id: '', password: 'nope' });
    const foreign = await browser.post('/smpp', {
      label: 'CRM',
      bind_type: 'receiver',
      mode: 'live',
      device_id: 'device_b1',
      password: PASSWORD,
    });

    expect(wrong.text).toMatch(/password/i);
    expect(foreign.text).toContain('This phone is not one of yours.');
    expect(calls('CreateSmppCredential')).toHaveLength(before);
  });

  it('when a credential is revoked, then RevokeSmppCredential gets it with the user, and the list says revoked', async () => {
    const browser = await world.signedIn('a');
    await browser.get('/smpp');

    const posted = await browser.post('/smpp/smpp_1/revoke', {});
    const after = await browser.get(posted.location);

    expect(posted.status).toBe(302);
    expect(calls<account.RevokeSmppCredentialRequest__Output>('RevokeSmppCredential')[0]).toMatchObject({
      clientId: 'client_a',
      credentialId: 'smpp_1',
      userId: 'user_a',
    });
    expect(after.text).toMatch(/revoked/);
  });
});
