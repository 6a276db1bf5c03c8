import { client, help, parse, printJson, UsageError, type Io, type Print } from '../command';
import { fields } from '../format';

export async function cancel(args: string[], io: Io, out: Print): Promise<number> {
  const { values, positionals } = parse(args, {}, 1);
  if (values.help) return help(out, 'smsgw cancel MESSAGE_ID [--json]');
  const id = positionals[0];
  if (!id) throw new UsageError('which message? smsgw cancel MESSAGE_ID');
  const res = await client(io, values).messages.cancel(id);
  if (values.json) printJson(out, res);
  else out(fields(res, ['message_id', 'status', 'cancelled_at']));
  return 0;
}
