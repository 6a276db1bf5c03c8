#!/usr/bin/env node
// Over 300 lines: the operator's usage text (about 90 lines) and one case per command, each parsing
// its options and calling one Admin method.
import { parseArgs } from 'node:util';
import { AppError, isServiceIdentity, type ServiceIdentity } from '@smsgw/platform';
import { defaultSimOption, hoursOption, OptionError, simOption, simRuleOption, wholeOption } from './fleet';
import { ensureGrpcCerts } from './k8s-grpc-certs';
import { Admin, resolveAddresses, resolveGrpcTls } from './index';
import { booleanOption, listOption } from './otp-protection';
import { ensureSecret, inClusterSecretsApi, parseKeySpec, parseRotation } from './k8s-secret';

const USAGE = `Operator command line of the SMS gateway.

  npm run admin -- create-client --email E [--name N]
      prints {client_id, live_api_key, test_api_key, signing_secret}
  npm run admin -- create-user --email E --password P [--name N]
      a dashboard user and the client it owns; prints {user_id, client_id, live_api_key, test_api_key, signing_secret}
  npm run admin -- create-device --client C [--name N]
      prints {device_id, device_password, pairing_url, pairing_expires_at}
  npm run admin -- create-devices --client C --count N [--name-prefix P]
      N devices at once (a fleet enrolled by QR code), named P1 to PN (P: phone-); each pairs with
      its one-time pairing code only and has no device password until rotate-device; prints
      [{device_id, name, pairing_url, pairing_code, pairing_expires_at}]
  npm run admin -- rotate-device --client C --device D
      a new pairing: prints {device_id, device_password, pairing_url, pairing_expires_at}; the old
      password, pairing code and tokens stop working and the phone is disconnected
  npm run admin -- revoke-device --client C --device D
      the device's tokens, password and pairing code stop working and the phone is disconnected,
      until rotate-device; prints {device_id, tokens_revoked}
  npm run admin -- remove-device --client C --device D
      removes the phone: it is disconnected and cannot pair again; its unpinned queued messages move
      to the client's other phones, its pinned ones fail with DEVICE_REMOVED; prints {device_id, removed}
  npm run admin -- set-device-limits --client C --device D [--per-minute N] [--per-hour N] [--per-day N]
        [--min-interval-ms N] [--max-interval-ms N] [--hours HH:MM-HH:MM|any] [--time-zone TZ]
      the phone's sending limits (SMS per sliding minute, hour, 24 hours; 0: none), the pause between
      two SMS (0 and 0: the hub's default, 2 to 3 s) and its sending hours in an IANA time zone (empty:
      UTC; an end before the start: across midnight); the options not given keep their value; prints
      {device_id, limits, usage, has_room, sims}
  npm run admin -- set-sim-health --client C --device D [--consecutive-failures N] [--failure-ratio P]
        [--window N] [--min-sample N] [--cool-down S]
      when the phone's SIMs are quarantined (docs/owners/phones.md): N faults in a row, or P percent
      of faults among the last --window results once there are --min-sample of them (0 turns a rule
      off), and how long before one probe message is tried; options not given keep their value;
      prints {device_id, ..., sim_health_settings, sim_health}
  npm run admin -- release-sim --client C --device D --slot N
      releases the phone's quarantined SIM N by hand; prints the phone as set-sim-health does
  npm run admin -- set-fleet --client C [--default-ttl S] [--failover-delay S]
        [--sim-rule round_robin|default] [--default-sim N]
      the client's default ttl of a send that gives none (0: none, else 60 to 604800 s), how long
      a phone may stay offline before its unpinned queued messages move to its other phones (10 to
      86400 s, default 60), and which SIM a phone with several uses for a message that names none
      (round_robin, the default: the next SIM with room; default: SIM N of --default-sim, 1 to 8,
      default 1, or the phone's first when it lacks it); an option not given keeps its value; prints
      {client_id, default_ttl_seconds, failover_delay_seconds, sim_rule, default_sim}
  npm run admin -- set-destinations --client C [--sms-countries FR,BE|all] [--otp-countries FR|all]
        [--otp-number-types PREMIUM_RATE,...|none]
      where the client's sends may go: the countries (ISO 3166-1 alpha-2) of ordinary sends and,
      apart, of OTPs (all, the default: every country), and the number types that are never a
      user's phone OTPs may reach anyway (PREMIUM_RATE, SHARED_COST, TOLL_FREE, UAN, VOICEMAIL,
      PAGER; none, the default: OTPs to them are refused); an option not given keeps its value;
      prints {client_id, sms_countries, otp_countries, otp_number_types}
  npm run admin -- set-otp-guard --client C [--enabled true|false] [--window S]
        [--prefix-min-requests N] [--prefix-min-conversion P] [--country-min-requests N]
        [--country-min-conversion P] [--end-user-limit N] [--end-user-window S]
      the client's OTP pumping guard: a prefix (a country) that asked for at least N codes in the
      window and verified under P percent is held for the window; at most --end-user-limit OTPs per
      end_user_key in --end-user-window seconds; the operator's defaults until set; an option not
      given keeps its value; prints the settings
  npm run admin -- list-otp-holds --client C
      the prefixes and countries the guard holds, and those held in the last 7 days
  npm run admin -- release-otp-hold --client C --hold H
      OTPs to that prefix or country go again at once; prints the hold
  npm run admin -- receive-sms --client C --device D --from F --text T [--sim N] [--test]
      makes the phone receive an SMS from F: a connected phone running the agent's simulator gets it
      as from the network (received_id empty: the phone makes its own); with --test the hub records
      it at once in test mode, for the test keys; prints {device_id, received_id}
  npm run admin -- create-key --client C [--test] [--name N] [--scopes send,read] [--ip-ranges 203.0.113.0/24,2001:db8::/32] [--daily-quota Q]
      another key of the client (live unless --test), limited to those scopes (send, otp, read, inbox,
      opt-outs, listen; none: every one), source address ranges and SMS per UTC day (0: no quota);
      prints {key_id, api_key}: the key is shown only here
  npm run admin -- revoke-key --key K
      prints {key_id, revoked_at}
  npm run admin -- create-smpp-credential --client C [--bind-type transmitter|receiver|transceiver] [--test] [--device D] [--name N]
      an SMPP credential of the client (transceiver and live unless said; --device: the phone that
      sends its messages); prints {credential_id, system_id, password}: the password is shown only here
  npm run admin -- create-webhook --client C --url U --events sms.sent,sms.failed [--test] [--batch] [--name D]
      prints {endpoint_id, secret, ...}; the secret signs its deliveries and is shown only here; with
      --batch its events go in batches: up to 100 in one POST (a JSON array of the usual envelopes),
      within a second of the first
  npm run admin -- list-webhooks --client C
  npm run admin -- delete-webhook --client C --endpoint E
  npm run admin -- send-test-event --client C --endpoint E --event sms.delivered
      prints {event_id, delivery_id}
  npm run admin -- list-deliveries --client C [--event EVT] [--endpoint E] [--limit N]
      the delivery log, newest first, each delivery with its attempts
  npm run admin -- replay-event --client C --event-id EVT [--endpoint E]
  smsgw-admin ensure-secret --name S --keys otp-hash-key,otp-seal-key,hub-tls-ticket-keys:48 [--rotate hub-tls-ticket-keys=7] [--labels k=v,...]
      inside a Kubernetes pod: creates the Secret S with 32 random bytes (base64) per key, or the
      bytes after a key's colon, or adds the keys it lacks; never changes a key it has (the chart's
      secrets Job) but to rotate one of --rotate older than its days (new keys first, the current
      ones kept second, the date in <key>-rotated-at); prints {secret, action}
  smsgw-admin ensure-grpc-certs --ca-secret NAME --secrets identity=secretName,... [--labels k=v,...]
      inside a Kubernetes pod: creates the CA Secret (ca.crt, ca.key) if missing; creates or replaces
      each identity's kubernetes.io/tls Secret (ca.crt, tls.crt, tls.key) when missing, signed by
      another CA or within 30 days of its end; never touches a good one; prints one
      {secret, identity, action} line per Secret

Service addresses come from ACCOUNT_GRPC_ADDR and DEVICE_HUB_GRPC_ADDR, else from the
local stack started by 'make dev' (.stack/dev.json); WEBHOOK_GRPC_ADDR for the webhook commands,
OTP_GRPC_ADDR for the OTP guard's.
The admin identity's certificate comes from GRPC_TLS_CA_FILE, GRPC_TLS_CERT_FILE and
GRPC_TLS_KEY_FILE (or GRPC_TLS=off), else from the local stack's files.`;

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  const { values } = parseArgs({
    args: rest,
    options: {
      email: { type: 'string' },
      name: { type: 'string' },
      count: { type: 'string' },
      'name-prefix': { type: 'string' },
      client: { type: 'string' },
      device: { type: 'string' },
      key: { type: 'string' },
      url: { type: 'string' },
      events: { type: 'string' },
      event: { type: 'string' },
      'event-id': { type: 'string' },
      endpoint: { type: 'string' },
      limit: { type: 'string' },
      password: { type: 'string' },
      keys: { type: 'string' },
      labels: { type: 'string' },
      rotate: { type: 'string' },
      'ca-secret': { type: 'string' },
      secrets: { type: 'string' },
      'per-minute': { type: 'string' },
      'consecutive-failures': { type: 'string' },
      'failure-ratio': { type: 'string' },
      'min-sample': { type: 'string' },
      'cool-down': { type: 'string' },
      slot: { type: 'string' },
      'per-hour': { type: 'string' },
      'per-day': { type: 'string' },
      'min-interval-ms': { type: 'string' },
      'max-interval-ms': { type: 'string' },
      hours: { type: 'string' },
      'time-zone': { type: 'string' },
      'default-ttl': { type: 'string' },
      'failover-delay': { type: 'string' },
      'sim-rule': { type: 'string' },
      'default-sim': { type: 'string' },
      from: { type: 'string' },
      text: { type: 'string' },
      sim: { type: 'string' },
      'sms-countries': { type: 'string' },
      'otp-countries': { type: 'string' },
      'otp-number-types': { type: 'string' },
      scopes: { type: 'string' },
      'ip-ranges': { type: 'string' },
      'daily-quota': { type: 'string' },
      'bind-type': { type: 'string' },
      enabled: { type: 'string' },
      window: { type: 'string' },
      'prefix-min-requests': { type: 'string' },
      'prefix-min-conversion': { type: 'string' },
      'country-min-requests': { type: 'string' },
      'country-min-conversion': { type: 'string' },
      'end-user-limit': { type: 'string' },
      'end-user-window': { type: 'string' },
      hold: { type: 'string' },
      test: { type: 'boolean' },
      batch: { type: 'boolean' },
      help: { type: 'boolean' },
    },
    strict: true,
  });
  if (!command || values.help || command === 'help') {
    console.log(USAGE);
    return command ? 0 : 2;
  }
  const need = (
    name:
      | 'email'
      | 'client'
      | 'device'
      | 'key'
      | 'url'
      | 'events'
      | 'event'
      | 'event-id'
      | 'endpoint'
      | 'password'
      | 'from'
      | 'text'
      | 'hold'
      | 'slot',
  ): string => {
    const value = values[name];
    if (!value) throw new UsageError(`${command} needs --${name}`);
    return value;
  };
  const labels = Object.fromEntries(
    (values.labels ?? '')
      .split(',')
      .filter(Boolean)
      .map((pair) => pair.split('=', 2) as [string, string]),
  );
  if (command === 'ensure-grpc-certs') {
    const caSecret = values['ca-secret'];
    const pairs = (values.secrets ?? '').split(',').filter(Boolean);
    if (!caSecret || pairs.length === 0) throw new UsageError('ensure-grpc-certs needs --ca-secret and --secrets');
    const secrets: Partial<Record<ServiceIdentity, string>> = {};
    for (const pair of pairs) {
      const [identity, secret] = pair.split('=', 2);
      if (!identity || !secret || !isServiceIdentity(identity)) throw new UsageError(`--secrets: "${pair}" is not identity=secretName`);
      secrets[identity] = secret;
    }
    for (const outcome of await ensureGrpcCerts(inClusterSecretsApi(), caSecret, secrets, labels)) console.log(JSON.stringify(outcome));
    return 0;
  }
  if (command === 'ensure-secret') {
    const name = values.name;
    const keys = (values.keys ?? '').split(',').filter(Boolean);
    if (!name || keys.length === 0) throw new UsageError('ensure-secret needs --name and --keys');
    for (const spec of keys) {
      try {
        parseKeySpec(spec);
      } catch (err) {
        throw new UsageError(`--keys: ${(err as Error).message}`);
      }
    }
    const rotations = (values.rotate ?? '').split(',').filter(Boolean);
    const parsed = rotations.map((spec) => {
      try {
        return parseRotation(spec);
      } catch (err) {
        throw new UsageError(`--rotate: ${(err as Error).message}`);
      }
    });
    for (const r of parsed) {
      if (!keys.some((spec) => parseKeySpec(spec).key === r.key)) throw new UsageError(`--rotate: ${r.key} is not one of --keys`);
    }
    const action = await ensureSecret(inClusterSecretsApi(), name, keys, labels, parsed);
    console.log(JSON.stringify({ secret: name, action }));
    return 0;
  }
  // The fleet commands' values, checked before any connection.
  const limitsChange = () => ({
    perMinute: wholeOption('per-minute', values['per-minute']),
    perHour: wholeOption('per-hour', values['per-hour']),
    perDay: wholeOption('per-day', values['per-day']),
    minIntervalMs: wholeOption('min-interval-ms', values['min-interval-ms']),
    maxIntervalMs: wholeOption('max-interval-ms', values['max-interval-ms']),
    ...hoursOption(values.hours),
    timeZone: values['time-zone'],
  });
  const fleetChange = () => ({
    defaultTtlSeconds: wholeOption('default-ttl', values['default-ttl']),
    failoverDelaySeconds: wholeOption('failover-delay', values['failover-delay']),
    simRule: simRuleOption(values['sim-rule']),
    defaultSim: defaultSimOption(values['default-sim']),
  });
  const destinationsChange = () => ({
    smsCountries: listOption('sms-countries', values['sms-countries'], 'all'),
    otpCountries: listOption('otp-countries', values['otp-countries'], 'all'),
    otpNumberTypes: listOption('otp-number-types', values['otp-number-types'], 'none'),
  });
  const guardChange = () => ({
    enabled: booleanOption('enabled', values.enabled),
    windowSeconds: wholeOption('window', values.window),
    prefixMinRequests: wholeOption('prefix-min-requests', values['prefix-min-requests']),
    prefixMinConversion: wholeOption('prefix-min-conversion', values['prefix-min-conversion']),
    countryMinRequests: wholeOption('country-min-requests', values['country-min-requests']),
    countryMinConversion: wholeOption('country-min-conversion', values['country-min-conversion']),
    endUserLimit: wholeOption('end-user-limit', values['end-user-limit']),
    endUserWindowSeconds: wholeOption('end-user-window', values['end-user-window']),
  });
  const destinations = command === 'set-destinations' ? destinationsChange() : {};
  const guard = command === 'set-otp-guard' ? guardChange() : {};
  const limits = command === 'set-device-limits' ? limitsChange() : {};
  const fleet = command === 'set-fleet' ? fleetChange() : {};
  const health =
    command === 'set-sim-health'
      ? {
          consecutiveFailures: wholeOption('consecutive-failures', values['consecutive-failures']),
          failureRatio: wholeOption('failure-ratio', values['failure-ratio']),
          window: wholeOption('window', values.window),
          minSample: wholeOption('min-sample', values['min-sample']),
          coolDownSeconds: wholeOption('cool-down', values['cool-down']),
        }
      : {};
  const sim = command === 'receive-sms' ? simOption(values.sim) : 0;
  const count = command === 'create-devices' ? wholeOption('count', values.count) : undefined;
  const deviceCount = (): number => {
    if (count === undefined || count < 1) throw new UsageError('create-devices needs --count N, at least 1');
    return count;
  };
  const admin = new Admin(resolveAddresses(), resolveGrpcTls());
  try {
    let result: unknown;
    if (command === 'create-client') result = await admin.createClient(need('email'), values.name);
    else if (command === 'create-user') result = await admin.createUser(need('email'), need('password'), values.name);
    else if (command === 'create-device') result = await admin.createDevice(need('client'), values.name);
    else if (command === 'create-devices') result = await admin.createDevices(need('client'), deviceCount(), values['name-prefix']);
    else if (command === 'rotate-device') result = await admin.rotateDevice(need('client'), need('device'));
    else if (command === 'revoke-device') result = await admin.revokeDevice(need('client'), need('device'));
    else if (command === 'remove-device') result = await admin.removeDevice(need('client'), need('device'));
    else if (command === 'set-device-limits') result = await admin.setDeviceLimits(need('client'), need('device'), limits);
    else if (command === 'set-sim-health') result = await admin.setSimHealth(need('client'), need('device'), health);
    else if (command === 'release-sim') result = await admin.releaseSim(need('client'), need('device'), simOption(need('slot')));
    else if (command === 'set-fleet') result = await admin.setFleet(need('client'), fleet);
    else if (command === 'set-destinations') result = await admin.setDestinations(need('client'), destinations);
    else if (command === 'set-otp-guard') result = await admin.setOtpGuard(need('client'), guard);
    else if (command === 'list-otp-holds') result = await admin.listOtpHolds(need('client'));
    else if (command === 'release-otp-hold') result = await admin.releaseOtpHold(need('client'), need('hold'));
    else if (command === 'receive-sms')
      result = await admin.receiveSms(need('client'), need('device'), { from: need('from'), text: need('text'), sim, test: values.test });
    else if (command === 'create-key') {
      const list = (v: string | undefined) => (v ?? '').split(',').filter(Boolean);
      const quota = values['daily-quota'] === undefined ? 0 : Number(values['daily-quota']);
      if (!Number.isInteger(quota)) throw new UsageError('--daily-quota takes a whole number');
      result = await admin.createKey(need('client'), {
        test: values.test,
        label: values.name,
        scopes: list(values.scopes),
        ipRanges: list(values['ip-ranges']),
        dailyQuota: quota,
      });
    } else if (command === 'revoke-key') result = await admin.revokeKey(need('key'));
    else if (command === 'create-smpp-credential') {
      const bindType = values['bind-type'] ?? 'transceiver';
      if (bindType !== 'transmitter' && bindType !== 'receiver' && bindType !== 'transceiver')
        throw new UsageError('--bind-type takes transmitter, receiver or transceiver');
      result = await admin.createSmppCredential(need('client'), {
        bindType,
        test: values.test,
        label: values.name,
        deviceId: values.device,
      });
    } else if (command === 'create-webhook')
      result = await admin.createWebhook(need('client'), need('url'), need('events').split(','), {
        test: values.test,
        batch: values.batch,
        description: values.name,
      });
    else if (command === 'list-webhooks') result = await admin.listWebhooks(need('client'));
    else if (command === 'delete-webhook') result = await admin.deleteWebhook(need('client'), need('endpoint'));
    else if (command === 'send-test-event') result = await admin.sendTestEvent(need('client'), need('endpoint'), need('event'));
    else if (command === 'replay-event') result = await admin.replayEvent(need('client'), need('event-id'), values.endpoint);
    else if (command === 'list-deliveries')
      result = await admin.listDeliveries(need('client'), {
        eventId: values.event,
        endpointId: values.endpoint,
        limit: values.limit ? Number(values.limit) : undefined,
      });
    else throw new UsageError(`unknown command "${command}"`);
    console.log(JSON.stringify(result, null, 2));
    return 0;
  } finally {
    admin.close();
  }
}

class UsageError extends Error {}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    if (err instanceof UsageError || err instanceof OptionError || (err as Error).name === 'TypeError')
      console.error(`error: ${(err as Error).message}\n\n${USAGE}`);
    else if (err instanceof AppError) console.error(`error: ${err.code}: ${err.message}`);
    else console.error(err);
    process.exit(err instanceof UsageError || err instanceof OptionError ? 2 : 1);
  },
);
