#!/usr/bin/env node
import { parseArgs } from 'node:util';
import { AppError } from '@smsgw/platform';
import { Admin, resolveAddresses } from './index';
import { ensureSecret, inClusterSecretsApi } from './k8s-secret';

const USAGE = `Operator command line of the SMS gateway.

  npm run admin -- create-client --email E [--name N]
      prints {client_id, live_api_key, test_api_key, signing_secret}
  npm run admin -- create-user --email E --password P [--name N]
      a dashboard user and the client it owns; prints {user_id, client_id, live_api_key, test_api_key, signing_secret}
  npm run admin -- create-device --client C [--name N]
      prints {device_id, device_password, pairing_url, pairing_expires_at}
  npm run admin -- rotate-device --client C --device D
      a new pairing: prints {device_id, device_password, pairing_url, pairing_expires_at}; the old
      password, pairing code and tokens stop working and the phone is disconnected
  npm run admin -- revoke-device --client C --device D
      the device's tokens, password and pairing code stop working and the phone is disconnected,
      until rotate-device; prints {device_id, tokens_revoked}
  npm run admin -- revoke-key --key K
      prints {key_id, revoked_at}
  npm run admin -- create-webhook --client C --url U --events sms.sent,sms.failed [--test] [--name D]
      prints {endpoint_id, secret}; the secret signs its deliveries and is shown only here
  npm run admin -- list-webhooks --client C
  npm run admin -- delete-webhook --client C --endpoint E
  npm run admin -- send-test-event --client C --endpoint E --event sms.delivered
      prints {event_id, delivery_id}
  npm run admin -- list-deliveries --client C [--event EVT] [--endpoint E] [--limit N]
      the delivery log, newest first, each delivery with its attempts
  npm run admin -- replay-event --client C --event-id EVT [--endpoint E]
  smsgw-admin ensure-secret --name S --keys otp-hash-key,otp-seal-key [--labels k=v,...]
      inside a Kubernetes pod: creates the Secret S with 32 random bytes (base64) per key, or adds
      the keys it lacks; never changes a key it has (the chart's secrets Job); prints {secret, action}

Service addresses come from ACCOUNT_GRPC_ADDR and DEVICE_HUB_GRPC_ADDR, else from the
local stack started by 'make dev' (.stack/dev.json); WEBHOOK_GRPC_ADDR for the webhook commands.`;

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  const { values } = parseArgs({
    args: rest,
    options: {
      email: { type: 'string' },
      name: { type: 'string' },
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
      test: { type: 'boolean' },
      help: { type: 'boolean' },
    },
    strict: true,
  });
  if (!command || values.help || command === 'help') {
    console.log(USAGE);
    return command ? 0 : 2;
  }
  const need = (
    name: 'email' | 'client' | 'device' | 'key' | 'url' | 'events' | 'event' | 'event-id' | 'endpoint' | 'password',
  ): string => {
    const value = values[name];
    if (!value) throw new UsageError(`${command} needs --${name}`);
    return value;
  };
  if (command === 'ensure-secret') {
    const name = values.name;
    const keys = (values.keys ?? '').split(',').filter(Boolean);
    if (!name || keys.length === 0) throw new UsageError('ensure-secret needs --name and --keys');
    const labels = Object.fromEntries(
      (values.labels ?? '')
        .split(',')
        .filter(Boolean)
        .map((pair) => pair.split('=', 2) as [string, string]),
    );
    const action = await ensureSecret(inClusterSecretsApi(), name, keys, labels);
    console.log(JSON.stringify({ secret: name, action }));
    return 0;
  }
  const admin = new Admin(resolveAddresses());
  try {
    let result: unknown;
    if (command === 'create-client') result = await admin.createClient(need('email'), values.name);
    else if (command === 'create-user') result = await admin.createUser(need('email'), need('password'), values.name);
    else if (command === 'create-device') result = await admin.createDevice(need('client'), values.name);
    else if (command === 'rotate-device') result = await admin.rotateDevice(need('client'), need('device'));
    else if (command === 'revoke-device') result = await admin.revokeDevice(need('client'), need('device'));
    else if (command === 'revoke-key') result = await admin.revokeKey(need('key'));
    else if (command === 'create-webhook')
      result = await admin.createWebhook(need('client'), need('url'), need('events').split(','), {
        test: values.test,
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
    if (err instanceof UsageError || (err as Error).name === 'TypeError') console.error(`error: ${(err as Error).message}\n\n${USAGE}`);
    else if (err instanceof AppError) console.error(`error: ${err.code}: ${err.message}`);
    else console.error(err);
    process.exit(err instanceof UsageError ? 2 : 1);
  },
);
