import { client, help, parse, printJson, UsageError, type Io, type Print } from '../command';
import { fields } from '../format';

export async function status(args: string[], io: Io, out: Print): Promise<number> {
  const { values, positionals } = parse(args, {}, 1);
  if (values.help) return help(out, 'smsgw status MESSAGE_ID [--json]');
  const id = positionals[0];
  if (!id) throw new UsageError('which message? smsgw status MESSAGE_ID');
  const res = await client(io, values).messages.get(id);
  if (values.json) printJson(out, res);
  else {
    out(
      fields(res, [
        'message_id',
        'status',
        'to',
        'message',
        'priority',
        'parts',
        'encoding',
        'created_at',
        'queued_at',
        'scheduled_at',
        'sent_at',
        'delivered_at',
        'failed_at',
        'cancelled_at',
        'error',
        'metadata',
      ]),
    );
  }
  return 0;
}
