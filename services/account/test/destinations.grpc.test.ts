import { randomBytes } from 'node:crypto';
import { AppError, type PromiseClient } from '@smsgw/platform';
import { accountProto, type account } from '@smsgw/proto';
import { clientOfAllowedCallers, startServiceUnderTest, thrownBy } from '@smsgw/testing';
import { loadAccountConfig } from '../src/config';
import { accountCallers } from '../src/grpc/account.handlers';
import { start } from '../src/main';

const startAccountService = () => startServiceUnderTest({ name: 'account', loadConfig: loadAccountConfig, start });

describe("a client's destinations (countries of sends and OTPs, special number types)", () => {
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

  const newClient = () => accounts.createClient({ email: `geo-${randomBytes(3).toString('hex')}@example.com`, name: 'Géo' });
  const setDestinations = (clientId: string, smsCountries: string[], otpCountries: string[], otpNumberTypes: string[] = []) =>
    accounts.updateClient({ clientId, email: '', name: '', setDestinations: true, smsCountries, otpCountries, otpNumberTypes });

  it('when a client is new, then every country is allowed (empty lists) and no special number type, and its keys verify so', async () => {
    const created = await newClient();
    expect(await accounts.getClient({ clientId: created.clientId })).toMatchObject({
      smsCountries: [],
      otpCountries: [],
      otpNumberTypes: [],
    });
    expect(await accounts.verifyApiKey({ apiKey: created.liveApiKey, clientId: created.clientId })).toMatchObject({
      smsCountries: [],
      otpCountries: [],
      otpNumberTypes: [],
    });
  });

  it('when the lists are set, then they are kept normalised (upper case, sorted, once) and the keys verify with them', async () => {
    const created = await newClient();
    const updated = await setDestinations(created.clientId, ['fr', ' BE', 'FR'], ['FR'], ['shared_cost']);
    expect(updated).toMatchObject({ smsCountries: ['BE', 'FR'], otpCountries: ['FR'], otpNumberTypes: ['SHARED_COST'] });
    expect(await accounts.verifyApiKey({ apiKey: created.testApiKey, clientId: created.clientId })).toMatchObject({
      smsCountries: ['BE', 'FR'],
      otpCountries: ['FR'],
      otpNumberTypes: ['SHARED_COST'],
    });
    // Another setting changed alone leaves them as they are; empty lists allow every country again.
    expect(await accounts.updateClient({ clientId: created.clientId, email: '', name: 'Autre' })).toMatchObject({
      smsCountries: ['BE', 'FR'],
    });
    expect(await setDestinations(created.clientId, [], [])).toMatchObject({ smsCountries: [], otpCountries: [], otpNumberTypes: [] });
  });

  it('when a country or a number type is unknown, then VALIDATION_ERROR names each list and nothing changes', async () => {
    const created = await newClient();
    await setDestinations(created.clientId, ['FR'], []);
    const err = await thrownBy(setDestinations(created.clientId, ['XX', 'FR'], ['FRA'], ['MOBILE']));
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).code).toBe('VALIDATION_ERROR');
    expect((err as AppError).details?.map((d) => d.field)).toEqual(['sms_countries', 'otp_countries', 'otp_number_types']);
    const one = await thrownBy(setDestinations(created.clientId, ['FR'], ['ZZ']));
    expect((one as AppError).message).toMatch(/^Pays inconnus : ZZ\./);
    expect(await accounts.getClient({ clientId: created.clientId })).toMatchObject({ smsCountries: ['FR'], otpCountries: [] });
  });
});
