import { AppError, type GrpcService } from '@smsgw/platform';
import { accountProto, deviceHubProto, type account, type devicehub } from '@smsgw/proto';
import { defaultSimOption, hoursOption, mergeLimits, OptionError, simOption, simRuleOption, wholeOption } from '../src/fleet';
import { Admin } from '../src/index';
import { adminOnly, grpcTlsFor } from './support/stand-ins';

describe('the fleet commands of the admin tool, against stand-ins that admit the admin identity only', () => {
  const calls: Record<string, unknown[]> = {};
  let device: devicehub.Device__Output;
  let client: account.Client__Output;
  let hub: GrpcService;
  let accounts: GrpcService;
  let admin: Admin;

  beforeAll(async () => {
    hub = await adminOnly(
      'device-hub',
      { name: 'smsgw.devicehub.v1.DeviceHubService', definition: deviceHubProto().DeviceHubService.service },
      {
        GetDevice: async (req: devicehub.GetDeviceRequest__Output) => {
          if (req.clientId !== device.clientId || req.deviceId !== device.deviceId) throw new AppError('INVALID_DEVICE_ID');
          return device;
        },
        SetDeviceLimits: async (req: devicehub.SetDeviceLimitsRequest__Output) => ({ ...device, limits: req.limits }),
        // As the hub: a test-mode SMS gets its id at once; a live one is the phone's to number.
        SimulateReceived: async (req: devicehub.SimulateReceivedRequest__Output) => {
          if (req.deviceId !== device.deviceId) throw new AppError('DEVICE_OFFLINE');
          return { receivedId: req.mode === 2 ? 'sim-test-1' : '' };
        },
      },
      calls,
    );
    accounts = await adminOnly(
      'account',
      { name: 'smsgw.account.v1.AccountService', definition: accountProto().AccountService.service },
      {
        GetClient: async () => client,
        UpdateClient: async (req: account.UpdateClientRequest__Output) => ({
          ...client,
          defaultTtlSeconds: req.defaultTtlSeconds,
          failoverDelaySeconds: req.failoverDelaySeconds,
          ...(req.setSimRule ? { simRule: req.simRule, defaultSim: req.defaultSim } : {}),
        }),
      },
      calls,
    );
    admin = new Admin(
      { accountAddress: `127.0.0.1:${accounts.port}`, deviceHubAddress: `127.0.0.1:${hub.port}`, webhookAddress: '127.0.0.1:9' },
      grpcTlsFor('admin'),
    );
  });

  afterAll(async () => {
    admin?.close();
    await hub?.stop(100);
    await accounts?.stop(100);
  });

  beforeEach(() => {
    for (const k of Object.keys(calls)) delete calls[k];
    device = {
      deviceId: 'device_1',
      clientId: 'client_1',
      name: 'Pixel',
      status: 'online',
      lastSeenAt: '',
      createdAt: '',
      limits: {
        perMinute: 5,
        perHour: 100,
        perDay: 0,
        minIntervalMs: 0,
        maxIntervalMs: 0,
        sendingHoursStart: '08:00',
        sendingHoursEnd: '20:00',
        timeZone: 'Europe/Paris',
      },
      usage: { lastMinute: 1, lastHour: 7, lastDay: 30 },
      hasRoom: true,
      sims: [],
      simHealthSettings: { consecutiveFailures: 5, failureRatio: 50, window: 20, minSample: 10, coolDownSeconds: 900 },
      simHealthOwn: false,
      simHealth: [],
    };
    client = {
      clientId: 'client_1',
      email: 'a@example.com',
      name: 'A',
      createdAt: '',
      emailVerified: true,
      accountVerified: true,
      defaultTtlSeconds: 0,
      failoverDelaySeconds: 60,
      simRule: 'round_robin',
      defaultSim: 1,
      smsCountries: [],
      otpCountries: [],
      otpNumberTypes: [],
      requireTwoFactor: false,
    };
  });

  it('when set-device-limits names some limits, then the device is read first and the others keep their value; the limits print as JSON', async () => {
    const printed = await admin.setDeviceLimits('client_1', 'device_1', { perDay: 300, ...hoursOption('22:00-06:00') });

    expect(Object.keys(calls)).toEqual(['GetDevice', 'SetDeviceLimits']);
    expect((calls.SetDeviceLimits![0] as devicehub.SetDeviceLimitsRequest__Output).limits).toEqual({
      perMinute: 5,
      perHour: 100,
      perDay: 300,
      minIntervalMs: 0,
      maxIntervalMs: 0,
      sendingHoursStart: '22:00',
      sendingHoursEnd: '06:00',
      timeZone: 'Europe/Paris',
    });
    expect(printed).toEqual({
      device_id: 'device_1',
      limits: {
        per_minute: 5,
        per_hour: 100,
        per_day: 300,
        min_interval_ms: 0,
        max_interval_ms: 0,
        sending_hours_start: '22:00',
        sending_hours_end: '06:00',
        time_zone: 'Europe/Paris',
      },
      usage: { last_minute: 1, last_hour: 7, last_day: 30 },
      has_room: true,
      sims: [],
    });
  });

  it("when set-device-limits names another client's device, then the hub's refusal comes back and nothing is set", async () => {
    await expect(admin.setDeviceLimits('client_2', 'device_1', { perDay: 1 })).rejects.toMatchObject({ code: 'INVALID_DEVICE_ID' });
    expect(calls.SetDeviceLimits).toBeUndefined();
  });

  it('when set-fleet gives one setting, then UpdateClient gets set_fleet with it and the current other; with none it only prints them', async () => {
    const changed = await admin.setFleet('client_1', { defaultTtlSeconds: 3600 });
    const shown = await admin.setFleet('client_1', {});

    expect(calls.UpdateClient).toEqual([
      expect.objectContaining({
        clientId: 'client_1',
        setFleet: true,
        defaultTtlSeconds: 3600,
        failoverDelaySeconds: 60,
        email: '',
        name: '',
      }),
    ]);
    expect(changed).toEqual({
      client_id: 'client_1',
      default_ttl_seconds: 3600,
      failover_delay_seconds: 60,
      sim_rule: 'round_robin',
      default_sim: 1,
    });
    expect(shown).toEqual({
      client_id: 'client_1',
      default_ttl_seconds: 0,
      failover_delay_seconds: 60,
      sim_rule: 'round_robin',
      default_sim: 1,
    });
  });

  it('when set-fleet gives a SIM rule or a default SIM, then UpdateClient gets set_sim_rule with it and the current other, the ttl and delay untouched', async () => {
    const changed = await admin.setFleet('client_1', { simRule: 'default', defaultSim: 2 });
    await admin.setFleet('client_1', { defaultSim: 3 });

    expect(calls.UpdateClient).toEqual([
      expect.objectContaining({ clientId: 'client_1', setFleet: false, setSimRule: true, simRule: 'default', defaultSim: 2 }),
      expect.objectContaining({ setFleet: false, setSimRule: true, simRule: 'round_robin', defaultSim: 3 }),
    ]);
    expect(changed).toMatchObject({ sim_rule: 'default', default_sim: 2, failover_delay_seconds: 60 });
    expect(simRuleOption('round_robin')).toBe('round_robin');
    expect(simRuleOption(undefined)).toBeUndefined();
    expect(() => simRuleOption('first')).toThrow(OptionError);
    expect(defaultSimOption('8')).toBe(8);
    expect(() => defaultSimOption('9')).toThrow(OptionError);
    expect(() => defaultSimOption('0')).toThrow(OptionError);
  });

  it('when an option is not a whole number or hours are not HH:MM-HH:MM, then it is a usage error; "any" clears the hours', () => {
    expect(() => wholeOption('per-minute', '-1')).toThrow(OptionError);
    expect(() => wholeOption('per-minute', '1.5')).toThrow(OptionError);
    expect(wholeOption('per-minute', '0')).toBe(0);
    expect(wholeOption('per-minute', undefined)).toBeUndefined();
    expect(() => hoursOption('8h-20h')).toThrow(OptionError);
    expect(hoursOption('any')).toEqual({ sendingHoursStart: '', sendingHoursEnd: '' });
    expect(mergeLimits(null, { perMinute: 3, perHour: undefined })).toMatchObject({ perMinute: 3, perHour: 0, timeZone: '' });
  });

  it('when receive-sms is run, then the hub gets SimulateReceived in live mode (1), or test mode (2) with --test, and the ids print', async () => {
    const live = await admin.receiveSms('client_1', 'device_1', { from: '+33698765432', text: 'Bonjour' });
    const test = await admin.receiveSms('client_1', 'device_1', { from: 'BANQUE', text: 'Code 1234', sim: 2, test: true });

    expect(calls.SimulateReceived).toEqual([
      { clientId: 'client_1', deviceId: 'device_1', mode: 1, from: '+33698765432', text: 'Bonjour', sim: 0 },
      { clientId: 'client_1', deviceId: 'device_1', mode: 2, from: 'BANQUE', text: 'Code 1234', sim: 2 },
    ]);
    expect(live).toEqual({ device_id: 'device_1', received_id: '' });
    expect(test).toEqual({ device_id: 'device_1', received_id: 'sim-test-1' });
  });

  it("when receive-sms names a phone the hub cannot reach, then the hub's refusal comes back; --sim is a slot from 1 to 8", async () => {
    await expect(admin.receiveSms('client_1', 'device_2', { from: '+33698765432', text: 'x' })).rejects.toMatchObject({
      code: 'DEVICE_OFFLINE',
    });
    expect(simOption(undefined)).toBe(0);
    expect(simOption('3')).toBe(3);
    expect(() => simOption('0')).toThrow(OptionError);
    expect(() => simOption('two')).toThrow(OptionError);
  });
});
