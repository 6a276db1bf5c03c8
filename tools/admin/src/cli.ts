#!/usr/bin/env node
import { parseArgs } from 'node:util';
import { AppError } from '@smsgw/platform';
import { Admin, resolveAddresses } from './index';

const USAGE = `Operator command line of the SMS gateway.

  npm run admin -- create-client --email E [--name N]
      prints {client_id, live_api_key, test_api_key, signing_secret}
  npm run admin -- create-device --client C [--name N]
      prints {device_id, device_password, pairing_url, pairing_expires_at}
  npm run admin -- revoke-key --key K
      prints {key_id, revoked_at}

Service addresses come from ACCOUNT_GRPC_ADDR and DEVICE_HUB_GRPC_ADDR, else from the
local stack started by 'make dev' (.stack/dev.json).`;

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  const { values } = parseArgs({
    args: rest,
    options: { email: { type: 'string' }, name: { type: 'string' }, client: { type: 'string' }, key: { type: 'string' }, help: { type: 'boolean' } },
    strict: true,
  });
  if (!command || values.help || command === 'help') {
    console.log(USAGE);
    return command ? 0 : 2;
  }
  const need = (name: 'email' | 'client' | 'key'): string => {
    const value = values[name];
    if (!value) throw new UsageError(`${command} needs --${name}`);
    return value;
  };
  const admin = new Admin(resolveAddresses());
  try {
    let result: unknown;
    if (command === 'create-client') result = await admin.createClient(need('email'), values.name);
    else if (command === 'create-device') result = await admin.createDevice(need('client'), values.name);
    else if (command === 'revoke-key') result = await admin.revokeKey(need('key'));
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
