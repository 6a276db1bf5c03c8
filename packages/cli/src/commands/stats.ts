import { client, help, parse, printJson, str, type Io, type Print } from '../command';
import { table } from '../format';

export async function stats(args: string[], io: Io, out: Print): Promise<number> {
  const { values } = parse(args, { 'from-date': { type: 'string' }, 'to-date': { type: 'string' }, device: { type: 'string' } });
  if (values.help) return help(out, 'smsgw stats [--from-date D] [--to-date D] [--device ID] [--json]');
  const res = await client(io, values).messages.stats({
    ...(str(values['from-date']) ? { from_date: str(values['from-date']) } : {}),
    ...(str(values['to-date']) ? { to_date: str(values['to-date']) } : {}),
    ...(str(values.device) ? { device_id: str(values.device) } : {}),
  });
  if (values.json) printJson(out, res);
  else {
    const s = res.stats;
    out(
      `${res.period.from} to ${res.period.to}: ${s.total_sent} sent, ${s.delivered} delivered, ${s.failed} failed, ${s.pending} pending, ${s.delivery_rate}% delivered`,
    );
    if (s.by_day.length)
      out(
        table(
          ['DAY', 'SENT', 'DELIVERED', 'FAILED'],
          s.by_day.map((d) => [d.date, String(d.sent), String(d.delivered), String(d.failed)]),
        ),
      );
  }
  return 0;
}
