import type { HistoryItem, HistoryParams, MessageStatus } from '@smsgw/client';
import { client, help, int, parse, printJson, str, UsageError, type Io, type Print } from '../command';
import { table, truncate } from '../format';
import { passphraseOf, readable } from '../passphrase';

export async function history(args: string[], io: Io, out: Print): Promise<number> {
  const { values } = parse(args, {
    status: { type: 'string' },
    to: { type: 'string' },
    search: { type: 'string' },
    'from-date': { type: 'string' },
    'to-date': { type: 'string' },
    device: { type: 'string' },
    limit: { type: 'string' },
    page: { type: 'string' },
    all: { type: 'boolean' },
    'passphrase-file': { type: 'string' },
  });
  if (values.help)
    return help(
      out,
      'smsgw history [--status S] [--to NUMBER] [--search TEXT] [--from-date D] [--to-date D] [--device ID] [--limit N] [--page N | --all] [--passphrase-file FILE] [--json]',
    );
  const passphrase = passphraseOf(str(values['passphrase-file']));
  const params: HistoryParams = {
    ...(str(values.status) ? { status: str(values.status) as MessageStatus } : {}),
    ...(str(values.to) ? { to: str(values.to) } : {}),
    ...(str(values.search) ? { search: str(values.search) } : {}),
    ...(str(values['from-date']) ? { from_date: str(values['from-date']) } : {}),
    ...(str(values['to-date']) ? { to_date: str(values['to-date']) } : {}),
    ...(str(values.device) ? { device_id: str(values.device) } : {}),
  };
  const sms = client(io, values);
  const row = (m: HistoryItem) => [m.message_id, m.status, m.to, m.created_at, truncate(readable(m.message, passphrase), 40)];
  const header = ['MESSAGE ID', 'STATUS', 'TO', 'CREATED', 'TEXT'];
  if (values.all) {
    if (values.page !== undefined) throw new UsageError('--all reads every page: leave --page out');
    const all: HistoryItem[] = [];
    for await (const m of sms.messages.list({ ...params, limit: int(values.limit, 'limit') ?? 100 }))
      all.push({ ...m, message: readable(m.message, passphrase) });
    if (values.json) printJson(out, all);
    else out(`${table(header, all.map(row))}\n${all.length} message(s)`);
    return 0;
  }
  const page = await sms.messages.history({ ...params, limit: int(values.limit, 'limit') ?? 20, page: int(values.page, 'page') ?? 1 });
  if (values.json) printJson(out, { ...page, data: page.data.map((m) => ({ ...m, message: readable(m.message, passphrase) })) });
  else {
    const p = page.pagination;
    out(
      `${table(header, page.data.map(row))}\npage ${p.current_page} of ${Math.max(1, p.total_pages)} (${p.total_items} message(s)${p.current_page < p.total_pages ? `; --page ${p.current_page + 1} for more, --all for every page` : ''})`,
    );
  }
  return 0;
}
