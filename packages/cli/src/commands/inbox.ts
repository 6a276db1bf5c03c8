import type { ListInboxParams, ReceivedSms, SmsGateway } from '@smsgw/client';
import { table, truncate } from '../format';
import { passphraseOf, readable } from '../passphrase';
import { client, help, int, parse, printJson, UsageError, type Io, type Print } from '../command';

/** `smsgw inbox`: the received SMS (GET /v1/sms/inbox), paged as `history` is. */
export const INBOX_OPTIONS = {
  from: { type: 'string' },
  search: { type: 'string' },
  'from-date': { type: 'string' },
  'to-date': { type: 'string' },
  device: { type: 'string' },
  limit: { type: 'string' },
  page: { type: 'string' },
  all: { type: 'boolean' },
  'passphrase-file': { type: 'string' },
} as const;

export const INBOX_USAGE =
  'smsgw inbox [--from SENDER] [--search TEXT] [--from-date D] [--to-date D] [--device ID] [--limit N] [--page N | --all] [--passphrase-file FILE] [--json]\n\n' +
  'The SMS your phones received, newest first. With --passphrase-file, the texts a phone sealed with its end-to-end\n' +
  'passphrase are shown opened (--json too); --search cannot look inside them.';

type Values = Record<string, string | boolean | undefined>;

/** What the command borrows from the CLI around it: its client, its option readers and its output. */
export interface InboxDeps {
  client: () => SmsGateway;
  int: (value: string | boolean | undefined, name: string) => number | undefined;
  usage: (message: string) => Error;
  out: (text: string) => void;
  json: (value: unknown) => void;
}

const str = (v: string | boolean | undefined): string | undefined => (typeof v === 'string' ? v : undefined);

export async function inbox(values: Values, deps: InboxDeps): Promise<number> {
  const passphrase = passphraseOf(str(values['passphrase-file']));
  const params: ListInboxParams = {
    ...(str(values.from) ? { from: str(values.from) } : {}),
    ...(str(values.search) ? { search: str(values.search) } : {}),
    ...(str(values['from-date']) ? { from_date: str(values['from-date']) } : {}),
    ...(str(values['to-date']) ? { to_date: str(values['to-date']) } : {}),
    ...(str(values.device) ? { device_id: str(values.device) } : {}),
  };
  const opened = (sms: ReceivedSms): ReceivedSms => ({ ...sms, message: readable(sms.message, passphrase) });
  const row = (sms: ReceivedSms) => [sms.id, sms.from, sms.sim === null ? '' : String(sms.sim), sms.received_at, truncate(sms.message, 40)];
  const header = ['ID', 'FROM', 'SIM', 'RECEIVED', 'TEXT'];
  const sms = deps.client();
  if (values.all) {
    if (values.page !== undefined) throw deps.usage('--all reads every page: leave --page out');
    const all: ReceivedSms[] = [];
    for await (const received of sms.inbox.list({ ...params, limit: deps.int(values.limit, 'limit') ?? 100 })) all.push(opened(received));
    if (values.json) deps.json(all);
    else deps.out(`${table(header, all.map(row))}\n${all.length} SMS`);
    return 0;
  }
  const page = await sms.inbox.page({ ...params, limit: deps.int(values.limit, 'limit') ?? 20, page: deps.int(values.page, 'page') ?? 1 });
  const data = page.data.map(opened);
  if (values.json) deps.json({ ...page, data });
  else {
    const p = page.pagination;
    deps.out(
      `${table(header, data.map(row))}\npage ${p.current_page} of ${Math.max(1, p.total_pages)} (${p.total_items} SMS${p.current_page < p.total_pages ? `; --page ${p.current_page + 1} for more, --all for every page` : ''})`,
    );
  }
  return 0;
}

/** The command of `run.ts`'s table: parses the options, then `inbox` with the CLI's client and printing. */
export async function inboxCommand(args: string[], io: Io, out: Print): Promise<number> {
  const { values } = parse(args, INBOX_OPTIONS);
  if (values.help) return help(out, INBOX_USAGE);
  const usage = (message: string) => new UsageError(message);
  return inbox(values, { client: () => client(io, values), int, usage, out, json: (value) => printJson(out, value) });
}
