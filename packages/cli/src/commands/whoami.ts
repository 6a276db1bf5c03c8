import { client, help, parse, printJson, str, type Io, type Print } from '../command';
import { fields } from '../format';

export async function whoami(args: string[], io: Io, out: Print): Promise<number> {
  const { values } = parse(args, { device: { type: 'string' } });
  if (values.help) return help(out, 'smsgw whoami [--device ID] [--json]');
  const res = await client(io, values).auth.test(str(values.device) ? { deviceId: str(values.device) } : {});
  if (values.json) printJson(out, res);
  else out(fields(res, ['client_id', 'mode', 'device_id', 'device_status']));
  return 0;
}
