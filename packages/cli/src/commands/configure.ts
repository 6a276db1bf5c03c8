import fs from 'node:fs';
import readline from 'node:readline';
import { Writable as NodeWritable } from 'node:stream';
import { SmsGateway } from '@smsgw/client';
import { help, parse, readAll, str, UsageError, type Io, type Print } from '../command';
import { configPath, readConfigFile, writeConfigFile } from '../config';

export async function configure(args: string[], io: Io, out: Print, err: Print): Promise<number> {
  const { values } = parse(args, {
    'base-url': { type: 'string' },
    'client-id': { type: 'string' },
    'ca-file': { type: 'string' },
    device: { type: 'string' },
    'no-check': { type: 'boolean' },
  });
  if (values.help) {
    return help(
      out,
      'smsgw configure [--profile NAME] --base-url URL --client-id ID [--ca-file FILE] [--device ID] [--no-check]\n\nThe API key is read from standard input (typed without echo on a terminal, or piped: `pass smsgw | smsgw configure …`).',
    );
  }
  const name = str(values.profile) ?? 'default';
  const file = configPath(io.env);
  const config = readConfigFile(file);
  const before = config.profiles[name] ?? {};
  const baseUrl = str(values['base-url']) ?? before.base_url;
  const clientId = str(values['client-id']) ?? before.client_id;
  if (!baseUrl) throw new UsageError('--base-url is required');
  if (!clientId) throw new UsageError('--client-id is required');
  const caFile = str(values['ca-file']) ?? before.ca_file;
  if (caFile && !fs.existsSync(caFile)) throw new UsageError(`--ca-file ${caFile}: no such file`);
  const apiKey = (await readSecret(io, err, 'API key (sgw_live_… or sgw_test_…): ')) || before.api_key;
  if (!apiKey) throw new UsageError('no API key on standard input');
  const profile = {
    base_url: baseUrl,
    client_id: clientId,
    api_key: apiKey,
    ...(caFile ? { ca_file: caFile } : {}),
    ...((str(values.device) ?? before.device_id) ? { device_id: str(values.device) ?? before.device_id } : {}),
  };
  if (!values['no-check']) {
    const sms = new SmsGateway({
      apiKey,
      clientId,
      baseUrl,
      ...(caFile ? { caFile } : {}),
      ...(profile.device_id ? { deviceId: profile.device_id } : {}),
    });
    const res = await sms.auth.test();
    err(`checked: client ${res.client_id}, ${res.mode} key, device ${res.device_id} ${res.device_status}`);
  }
  config.profiles[name] = profile;
  writeConfigFile(file, config);
  out(`profile "${name}" saved in ${file}`);
  return 0;
}

/** A line from standard input: typed without echo on a terminal, or the first line piped in. */
async function readSecret(io: Io, err: Print, prompt: string): Promise<string> {
  if (!io.stdin.isTTY)
    return (
      (await readAll(io.stdin))
        .split(/\r?\n/)
        .find((l) => l.trim())
        ?.trim() ?? ''
    );
  io.stderr.write(prompt);
  const muted = new NodeWritable({ write: (_chunk, _enc, done) => done() });
  const rl = readline.createInterface({ input: io.stdin, output: muted, terminal: true });
  try {
    return await new Promise<string>((resolve) => rl.once('line', (line) => resolve(line.trim())));
  } finally {
    rl.close();
    err('');
  }
}
