import { randomBytes } from 'node:crypto';
import { AppError, type PromiseClient } from '@smsgw/platform';
import { accountProto, type account } from '@smsgw/proto';
import { clientOfAllowedCallers, startServiceUnderTest, thrownBy } from '@smsgw/testing';
import { loadAccountConfig } from '../src/config';
import { accountCallers } from '../src/grpc/account.handlers';
import { start } from '../src/main';

const startAccountService = () => startServiceUnderTest({ name: 'account', loadConfig: loadAccountConfig, start });

describe("a client's SIM rule (round_robin or default) and default SIM", () => {
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

  const newClient = () => accounts.createClient({ email: `sims-${randomBytes(3).toString('hex')}@example.com`, name: 'SIM' });
  const setSimRule = (clientId: string, simRule: string, defaultSim: number) =>
    accounts.updateClient({ clientId, email: '', name: '', setSimRule: true, simRule, defaultSim });

  it('when a client is new, then its rule is round_robin with SIM 1 as default', async () => {
    const created = await newClient();
    expect(await accounts.getClient({ clientId: created.clientId })).toMatchObject({ simRule: 'round_robin', defaultSim: 1 });
  });

  it('when the rule is set, then the client shows it; round_robin without a default SIM keeps the stored one', async () => {
    const created = await newClient();
    expect(await setSimRule(created.clientId, 'default', 2)).toMatchObject({ simRule: 'default', defaultSim: 2 });
    expect(await accounts.getClient({ clientId: created.clientId })).toMatchObject({ simRule: 'default', defaultSim: 2 });
    expect(await setSimRule(created.clientId, 'round_robin', 0)).toMatchObject({ simRule: 'round_robin', defaultSim: 2 });
    expect(await setSimRule(created.clientId, 'default', 8)).toMatchObject({ simRule: 'default', defaultSim: 8 });
  });

  it('when the name changes, or the fleet settings, without set_sim_rule, then the rule stays as it was', async () => {
    const created = await newClient();
    await setSimRule(created.clientId, 'default', 3);
    const renamed = await accounts.updateClient({ clientId: created.clientId, email: '', name: 'Autre', simRule: 'x', defaultSim: 99 });
    expect(renamed).toMatchObject({ name: 'Autre', simRule: 'default', defaultSim: 3 });
    const fleet = await accounts.updateClient({
      clientId: created.clientId,
      email: '',
      name: '',
      setFleet: true,
      defaultTtlSeconds: 0,
      failoverDelaySeconds: 60,
    });
    expect(fleet).toMatchObject({ simRule: 'default', defaultSim: 3 });
  });

  it.each([
    ['alternate', 1, ['sim_rule']],
    ['', 1, ['sim_rule']],
    ['default', 0, ['default_sim']],
    ['default', 9, ['default_sim']],
    ['round_robin', -1, ['default_sim']],
    ['first', 12, ['sim_rule', 'default_sim']],
  ])('when set_sim_rule gives rule %p and default SIM %p, then it is refused naming %p, and nothing changes', async (rule, sim, fields) => {
    const created = await newClient();
    const err = await thrownBy<AppError>(setSimRule(created.clientId, rule, sim));
    expect(err).toBeInstanceOf(AppError);
    expect(err.code).toBe('VALIDATION_ERROR');
    expect(err.details?.map((d) => d.field)).toEqual(fields);
    expect(await accounts.getClient({ clientId: created.clientId })).toMatchObject({ simRule: 'round_robin', defaultSim: 1 });
  });
});
