// Over 300 lines: every command of `smsgw` (send, send-bulk, status, cancel, history, stats, otp,
// ...) is one function here, sharing the option parsing, credentials and printing helpers above.
import fs from 'node:fs';
import readline from 'node:readline';
import { Writable as NodeWritable } from 'node:stream';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import {
  ApiError,
  AuthenticationError,
  SmsGateway,
  SmsGatewayError,
  VERSION,
  type BatchResponse,
  type HistoryItem,
  type HistoryParams,
  type MessageStatus,
} from '@smsgw/client';
import { ConfigError, configPath, readConfigFile, resolveCredentials, writeConfigFile, type Credentials } from './config';
import { batches, recipientsOf, type Recipient } from './csv';
import { fields, Progress, table, truncate, type Writable } from './format';
import { inbox, INBOX_OPTIONS, INBOX_USAGE } from './inbox';
import { listen } from './listen';
import { passphraseOf, readable, sealed } from './passphrase';

/** The process around a command: its streams and environment (tests give their own). */
export interface Io {
  stdout: Writable;
  stderr: Writable;
  stdin: NodeJS.ReadableStream & { isTTY?: boolean; setRawMode?: (raw: boolean) => unknown };
  env: NodeJS.ProcessEnv;
  /** Calls `stop` on Ctrl-C (SIGINT) or SIGTERM; only commands that run until stopped (listen) ask for it. */
  onInterrupt?: (stop: () => void) => void;
}

const USAGE = `smsgw ${VERSION}: the SMS gateway from the command line

Usage: smsgw <command> [options]

  send --to NUMBER --message TEXT     queue one SMS (--schedule TIME, --priority 1-5,
                                      --metadata JSON, --webhook-url URL; --passphrase-file FILE
                                      sends it end-to-end encrypted)
  send-bulk --csv FILE [--message T]  send to every row of a CSV file, in batches of 100
                                      (a phone column, and a message column or --message;
                                      --passphrase-file FILE seals the texts, --encrypted sends
                                      texts sealed already)
  status MESSAGE_ID                   one message's status
  cancel MESSAGE_ID                   cancel a message still queued
  history                             the latest messages as a table (--status, --to, --search,
                                      --from-date, --to-date, --device, --limit, --page, --all;
                                      --passphrase-file FILE opens encrypted texts)
  inbox                               the SMS your phones received (--from, --search, --from-date,
                                      --to-date, --device, --limit, --page, --all;
                                      --passphrase-file FILE opens encrypted texts)
  stats                               counts and delivery rate by day (--from-date, --to-date)
  otp send --to NUMBER                send a one-time password (--length, --expiry, --template,
                                      --end-user-key, --fallback-after)
  otp verify --otp-id ID --code CODE  check it (exit 1 when the code is wrong)
  otp stats                           codes sent, verified, expired and the conversion, by day and
                                      country (--from-date, --to-date)
  whoami                              check the credentials and the phone
  listen [--events K1,K2]             the account's webhook events as they happen, checked with
         [--forward URL]              the session's secret and printed (--json: the bodies), or
                                      posted to a local URL with the same signature headers
  configure --base-url URL --client-id ID [--ca-file FILE] [--device ID]
                                      save a profile; the API key is read from standard input

Every command takes --json (the API's answer as JSON), --profile NAME and --device ID (sends).

Credentials come from SMSGW_API_KEY, SMSGW_CLIENT_ID, SMSGW_BASE_URL (and SMSGW_CA_FILE,
SMSGW_DEVICE_ID), or from a profile of ~/.config/smsgw/config.json (SMSGW_PROFILE or --profile;
a profile named with --profile wins over the environment). Never from an argument: a key on a
command line stays in the shell's history and in ps.

Exit status: 0 done, 1 the API refused or could not be reached, 2 a mistake in the command.`;

class UsageError extends Error {
  override name = 'UsageError';
}

type Options = NonNullable<ParseArgsConfig['options']>;
const COMMON: Options = {
  json: { type: 'boolean' },
  profile: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
};
const SENDING: Options = { device: { type: 'string' }, 'idempotency-key': { type: 'string' } };

/** Flags that would put a key on the command line: refused with the reason, not as "unknown". */
const KEY_FLAGS = /^--?(api[-_]?key|key|secret|token)(=|$)/i;

export async function run(argv: string[], io: Io): Promise<number> {
  const out = (text: string) => io.stdout.write(`${text}\n`);
  const err = (text: string) => io.stderr.write(`${text}\n`);
  try {
    const keyFlag = argv.find((a) => KEY_FLAGS.test(a));
    if (keyFlag) {
      throw new UsageError(
        `${keyFlag.split('=')[0]}: the API key is never taken from the command line (it would stay in the shell's history and in ps); set SMSGW_API_KEY or run \`smsgw configure\``,
      );
    }
    const [command, ...rest] = argv;
    if (!command || command === 'help' || command === '--help' || command === '-h') {
      out(USAGE);
      return command ? 0 : 2;
    }
    if (command === '--version' || command === 'version') {
      out(VERSION);
      return 0;
    }
    const commands: Record<string, (args: string[]) => Promise<number>> = {
      send: (a) => send(a, io, out),
      'send-bulk': (a) => sendBulk(a, io, out),
      status: (a) => status(a, io, out),
      cancel: (a) => cancel(a, io, out),
      history: (a) => history(a, io, out),
      inbox: (a) => inboxCommand(a, io, out),
      stats: (a) => stats(a, io, out),
      otp: (a) => otp(a, io, out),
      whoami: (a) => whoami(a, io, out),
      configure: (a) => configure(a, io, out, err),
      listen: (a) => listenCommand(a, io, out, err),
    };
    const handler = commands[command];
    if (!handler) throw new UsageError(`unknown command "${command}" (smsgw help lists them)`);
    return await handler(rest);
  } catch (e) {
    if (e instanceof UsageError || e instanceof ConfigError || (e as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      err(`smsgw: ${(e as Error).message}`);
      return 2;
    }
    if (e instanceof ApiError) {
      err(`smsgw: ${e.code} (HTTP ${e.status}): ${e.message.replace(/^\S+: /, '')}`);
      for (const d of e.details) err(`  ${d.field ?? ''}${d.field ? ': ' : ''}${d.code ?? ''}${d.message ? ` ${d.message}` : ''}`);
      if (e.retryAfter !== undefined) err(`  retry after ${e.retryAfter} s`);
      return 1;
    }
    if (e instanceof SmsGatewayError) {
      err(`smsgw: ${e.message}${e.cause instanceof Error ? ` (${e.cause.message})` : ''}`);
      return 1;
    }
    throw e;
  }
}

function parse(args: string[], options: Options, positionals = 0) {
  const parsed = parseArgs({ args, options: { ...COMMON, ...options }, allowPositionals: positionals > 0, strict: true });
  if (parsed.positionals.length > positionals) throw new UsageError(`unexpected argument "${parsed.positionals[positionals]}"`);
  return parsed as { values: Record<string, string | boolean | undefined>; positionals: string[] };
}

const str = (v: string | boolean | undefined): string | undefined => (typeof v === 'string' ? v : undefined);

function int(v: string | boolean | undefined, name: string): number | undefined {
  if (v === undefined) return undefined;
  if (typeof v !== 'string' || !/^\d+$/.test(v)) throw new UsageError(`--${name} takes a whole number, not "${String(v)}"`);
  return Number(v);
}

function need(v: string | boolean | undefined, name: string): string {
  if (typeof v !== 'string' || v === '') throw new UsageError(`--${name} is required`);
  return v;
}

function client(io: Io, values: Record<string, string | boolean | undefined>): SmsGateway {
  const creds: Credentials = resolveCredentials(io.env, str(values.profile));
  return new SmsGateway({
    apiKey: creds.apiKey,
    clientId: creds.clientId,
    baseUrl: creds.baseUrl,
    ...(creds.caFile ? { caFile: creds.caFile } : {}),
    ...(creds.deviceId ? { deviceId: creds.deviceId } : {}),
    // A command line waits out a short rate limit rather than failing a long CSV half-way.
    maxRetries: 4,
  });
}

function sendOptions(values: Record<string, string | boolean | undefined>) {
  return {
    ...(str(values.device) ? { deviceId: str(values.device) } : {}),
    ...(str(values['idempotency-key']) ? { idempotencyKey: str(values['idempotency-key']) } : {}),
  };
}

function metadataOf(v: string | boolean | undefined): Record<string, unknown> | undefined {
  if (v === undefined) return undefined;
  try {
    const parsed: unknown = JSON.parse(String(v));
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) return parsed as Record<string, unknown>;
  } catch {
    // fall through to the usage error
  }
  throw new UsageError('--metadata takes a JSON object, such as \'{"order": "A-17"}\'');
}

function printJson(out: (t: string) => void, value: unknown): void {
  out(JSON.stringify(value, null, 2));
}

async function send(args: string[], io: Io, out: (t: string) => void): Promise<number> {
  const { values } = parse(args, {
    ...SENDING,
    to: { type: 'string' },
    message: { type: 'string' },
    priority: { type: 'string' },
    schedule: { type: 'string' },
    metadata: { type: 'string' },
    'webhook-url': { type: 'string' },
    'passphrase-file': { type: 'string' },
  });
  if (values.help)
    return help(
      out,
      'smsgw send --to NUMBER --message TEXT [--priority 1-5] [--schedule ISO-TIME] [--metadata JSON] [--webhook-url URL] [--passphrase-file FILE] [--device ID] [--idempotency-key KEY] [--json]',
    );
  const passphrase = passphraseOf(str(values['passphrase-file']));
  const body = {
    to: need(values.to, 'to'),
    // With a passphrase the text leaves this machine encrypted: only the phone opens it.
    message: sealed(need(values.message, 'message'), passphrase),
    ...(passphrase !== undefined ? { encrypted: true } : {}),
    ...(values.priority !== undefined ? { priority: int(values.priority, 'priority') } : {}),
    ...(str(values.schedule) ? { scheduled_at: str(values.schedule) } : {}),
    ...(values.metadata !== undefined ? { metadata: metadataOf(values.metadata) } : {}),
    ...(str(values['webhook-url']) ? { webhook_url: str(values['webhook-url']) } : {}),
  };
  const res = await client(io, values).messages.send(body, sendOptions(values));
  if (values.json) printJson(out, res);
  else
    out(fields(res, ['message_id', 'status', 'to', 'device_id', 'parts', 'encoding', 'queued_at', 'scheduled_at', 'estimated_delivery']));
  return 0;
}

interface BatchOutcome {
  batch: number;
  lines: [number, number];
  recipients: number;
  batch_id?: string;
  replayed?: boolean;
  error?: { code: string; status: number; message: string; request_id?: string; lines: { line: number; to: string; code?: string }[] };
}

async function sendBulk(args: string[], io: Io, out: (t: string) => void): Promise<number> {
  const { values } = parse(args, {
    ...SENDING,
    csv: { type: 'string' },
    message: { type: 'string' },
    priority: { type: 'string' },
    'webhook-url': { type: 'string' },
    'batch-size': { type: 'string' },
    'stop-on-error': { type: 'boolean' },
    'passphrase-file': { type: 'string' },
    encrypted: { type: 'boolean' },
  });
  if (values.help) {
    return help(
      out,
      'smsgw send-bulk --csv FILE [--message TEXT] [--priority 1-5] [--webhook-url URL] [--device ID] [--idempotency-key PREFIX] [--batch-size N] [--stop-on-error] [--passphrase-file FILE | --encrypted] [--json]\n\n' +
        'The file has a header row with a phone column (phone, to, number, phone_number, mobile, recipient) and may have a\n' +
        'message column (message, text, body); rows without a text take --message. Rows go in batches of 100 (one request\n' +
        'each; a batch is all or nothing). With --idempotency-key P, batch n is sent with the key P-n: running the same\n' +
        'command again within 24 hours sends only the batches that were not queued, never one twice. With --passphrase-file\n' +
        'every text is sealed end-to-end before it leaves; --encrypted sends texts the file holds sealed already as they are.',
    );
  }
  const file = need(values.csv, 'csv');
  if (values.encrypted && values['passphrase-file'] !== undefined)
    throw new UsageError('--encrypted sends texts already sealed; --passphrase-file seals them: give one of the two');
  const passphrase = passphraseOf(str(values['passphrase-file']));
  const size = int(values['batch-size'], 'batch-size') ?? 100;
  if (size < 1 || size > 100) throw new UsageError('--batch-size is 1 to 100 (the API takes at most 100 recipients a request)');
  let text: string;
  try {
    text = file === '-' ? await readAll(io.stdin) : fs.readFileSync(file, 'utf8');
  } catch (e) {
    throw new UsageError(`cannot read ${file}: ${(e as Error).message}`);
  }
  let parsed: ReturnType<typeof recipientsOf>;
  try {
    parsed = recipientsOf(text, str(values.message));
  } catch (e) {
    throw new UsageError(`${file}: ${(e as Error).message}`);
  }
  const sms = client(io, values);
  const groups = batches(parsed.recipients, size);
  const priority = int(values.priority, 'priority');
  const common = {
    ...(priority !== undefined ? { priority } : {}),
    ...(str(values['webhook-url']) ? { webhook_url: str(values['webhook-url']) } : {}),
    // End-to-end (docs/api/encryption.md): the texts leave this machine as envelopes, stored and forwarded untouched.
    ...(passphrase !== undefined || values.encrypted ? { encrypted: true } : {}),
  };
  const prefix = str(values['idempotency-key']);
  const progress = new Progress(io.stderr, parsed.recipients.length, 'recipients');
  const outcomes: BatchOutcome[] = [];
  let done = 0;
  let stopped = false;
  for (const [i, group] of groups.entries()) {
    const n = i + 1;
    const outcome: BatchOutcome = { batch: n, lines: [group[0]!.line, group.at(-1)!.line], recipients: group.length };
    const options = {
      ...(str(values.device) ? { deviceId: str(values.device) } : {}),
      ...(prefix ? { idempotencyKey: `${prefix}-${n}` } : {}),
    };
    try {
      let res: BatchResponse & { lastResponse: { replayed: boolean } };
      const same = group.every((r) => (r.message ?? values.message) === (group[0]!.message ?? values.message));
      if (!parsed.personalised || same) {
        res = await sms.messages.sendBulk(
          { recipients: group.map((r) => r.to), message: sealed(group[0]!.message ?? String(values.message), passphrase), ...common },
          options,
        );
      } else {
        res = await sms.messages.sendPersonalized(
          { messages: group.map((r) => ({ to: r.to, message: sealed(r.message ?? String(values.message), passphrase) })), ...common },
          options,
        );
      }
      outcome.batch_id = res.batch_id;
      outcome.replayed = res.lastResponse.replayed;
      done += group.length;
      progress.update(done, `batch ${n}/${groups.length} ${res.lastResponse.replayed ? 'already queued' : 'queued'} (${res.batch_id})`);
    } catch (e) {
      if (!(e instanceof SmsGatewayError)) throw e;
      outcome.error = failureOf(e, group);
      progress.update(done, `batch ${n}/${groups.length} refused: ${outcome.error.code}`);
      if (e instanceof AuthenticationError || values['stop-on-error']) stopped = true;
    }
    outcomes.push(outcome);
    if (stopped) break;
  }
  progress.end();
  const queued = outcomes.filter((o) => !o.error).reduce((s, o) => s + o.recipients, 0);
  const failed = outcomes.filter((o) => o.error);
  const notTried = parsed.recipients.length - outcomes.reduce((s, o) => s + o.recipients, 0);
  if (values.json) {
    printJson(out, {
      total: parsed.recipients.length,
      queued,
      refused: parsed.recipients.length - queued - notTried,
      not_sent: notTried,
      batches: outcomes,
    });
  } else {
    const replayed = outcomes.filter((o) => o.replayed).reduce((s, o) => s + o.recipients, 0);
    out(
      `${queued} of ${parsed.recipients.length} recipients queued in ${outcomes.length - failed.length} batch(es)` +
        (replayed ? ` (${replayed} already queued by an earlier run, not sent again)` : '') +
        '.',
    );
    for (const f of failed) {
      const e = f.error!;
      out(
        `batch ${f.batch} (lines ${f.lines[0]}-${f.lines[1]}) refused, nothing of it sent: ${e.code}: ${e.message}${e.request_id ? ` (request ${e.request_id})` : ''}`,
      );
      for (const l of e.lines) out(`  line ${l.line}: ${l.to}${l.code ? ` ${l.code}` : ''}`);
    }
    if (notTried) out(`${notTried} recipients not tried (stopped after batch ${outcomes.length}).`);
  }
  return failed.length || notTried ? 1 : 0;
}

/** A refused batch, its failing rows named by their line in the file (details name `recipients[3]`, `messages[2].to`). */
function failureOf(e: SmsGatewayError, group: Recipient[]): NonNullable<BatchOutcome['error']> {
  if (!(e instanceof ApiError)) return { code: 'NO_ANSWER', status: 0, message: e.message, lines: [] };
  const lines = e.details.flatMap((d) => {
    const m = /^(?:recipients|messages)\[(\d+)\]/.exec(d.field ?? '');
    const r = m ? group[Number(m[1])] : undefined;
    return r ? [{ line: r.line, to: r.to, ...(d.code ? { code: d.code } : {}) }] : [];
  });
  return {
    code: e.code,
    status: e.status,
    message: e.message.replace(/^\S+: /, '').replace(/ \(request [^)]*\)$/, ''),
    ...(e.requestId ? { request_id: e.requestId } : {}),
    lines,
  };
}

async function status(args: string[], io: Io, out: (t: string) => void): Promise<number> {
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

async function cancel(args: string[], io: Io, out: (t: string) => void): Promise<number> {
  const { values, positionals } = parse(args, {}, 1);
  if (values.help) return help(out, 'smsgw cancel MESSAGE_ID [--json]');
  const id = positionals[0];
  if (!id) throw new UsageError('which message? smsgw cancel MESSAGE_ID');
  const res = await client(io, values).messages.cancel(id);
  if (values.json) printJson(out, res);
  else out(fields(res, ['message_id', 'status', 'cancelled_at']));
  return 0;
}

async function history(args: string[], io: Io, out: (t: string) => void): Promise<number> {
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

async function inboxCommand(args: string[], io: Io, out: (t: string) => void): Promise<number> {
  const { values } = parse(args, INBOX_OPTIONS);
  if (values.help) return help(out, INBOX_USAGE);
  const usage = (message: string) => new UsageError(message);
  return inbox(values, { client: () => client(io, values), int, usage, out, json: (value) => printJson(out, value) });
}

async function stats(args: string[], io: Io, out: (t: string) => void): Promise<number> {
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

async function otp(args: string[], io: Io, out: (t: string) => void): Promise<number> {
  const [sub, ...rest] = args;
  if (sub === 'send') {
    const { values } = parse(rest, {
      ...SENDING,
      to: { type: 'string' },
      length: { type: 'string' },
      expiry: { type: 'string' },
      template: { type: 'string' },
      'end-user-key': { type: 'string' },
      'fallback-after': { type: 'string' },
    });
    if (values.help)
      return help(
        out,
        'smsgw otp send --to NUMBER [--length 4-8] [--expiry SECONDS] [--template TEXT-WITH-{{code}}] [--end-user-key KEY] [--fallback-after SECONDS] [--device ID] [--json]',
      );
    const res = await client(io, values).otp.send(
      {
        to: need(values.to, 'to'),
        ...(values.length !== undefined ? { length: int(values.length, 'length') } : {}),
        ...(values.expiry !== undefined ? { expiry: int(values.expiry, 'expiry') } : {}),
        ...(str(values.template) ? { template: str(values.template) } : {}),
        ...(str(values['end-user-key']) ? { end_user_key: str(values['end-user-key']) } : {}),
        ...(values['fallback-after'] !== undefined ? { fallback_after: int(values['fallback-after'], 'fallback-after') } : {}),
      },
      sendOptions(values),
    );
    if (values.json) printJson(out, res);
    else out(fields(res, ['otp_id', 'to', 'expires_at', 'message_id', 'status']));
    return 0;
  }
  if (sub === 'verify') {
    const { values, positionals } = parse(rest, { 'otp-id': { type: 'string' }, code: { type: 'string' } }, 2);
    if (values.help) return help(out, 'smsgw otp verify --otp-id ID --code CODE [--json]   (or: smsgw otp verify ID CODE)');
    const otpId = str(values['otp-id']) ?? positionals[0];
    const code = str(values.code) ?? positionals[1];
    if (!otpId || !code) throw new UsageError('smsgw otp verify --otp-id ID --code CODE');
    const res = await client(io, values).otp.verify({ otp_id: otpId, code });
    if (values.json) printJson(out, res);
    else out(res.valid ? `valid (verified at ${res.verified_at})` : `wrong code: ${res.attempts_remaining} attempt(s) remaining`);
    return res.valid ? 0 : 1;
  }
  if (sub === 'stats') {
    const { values } = parse(rest, { 'from-date': { type: 'string' }, 'to-date': { type: 'string' }, device: { type: 'string' } });
    if (values.help) return help(out, 'smsgw otp stats [--from-date D] [--to-date D] [--device ID] [--json]');
    const res = await client(io, values).otp.stats({
      ...(str(values['from-date']) ? { from_date: str(values['from-date']) } : {}),
      ...(str(values['to-date']) ? { to_date: str(values['to-date']) } : {}),
      ...(str(values.device) ? { device_id: str(values.device) } : {}),
    });
    if (values.json) printJson(out, res);
    else {
      const s = res.stats;
      out(
        `${res.period.from} to ${res.period.to}: ${s.sent} sent, ${s.verified} verified, ${s.expired} expired, ${s.failed_attempts} wrong codes, ${s.conversion_rate}% converted`,
      );
      if (s.by_day.length)
        out(
          table(
            ['DAY', 'SENT', 'VERIFIED'],
            s.by_day.map((d) => [d.date, String(d.sent), String(d.verified)]),
          ),
        );
      if (s.by_country.length)
        out(
          table(
            ['COUNTRY', 'SENT', 'VERIFIED'],
            s.by_country.map((c) => [c.country, String(c.sent), String(c.verified)]),
          ),
        );
    }
    return 0;
  }
  throw new UsageError('smsgw otp send --to NUMBER | smsgw otp verify --otp-id ID --code CODE | smsgw otp stats');
}

async function whoami(args: string[], io: Io, out: (t: string) => void): Promise<number> {
  const { values } = parse(args, { device: { type: 'string' } });
  if (values.help) return help(out, 'smsgw whoami [--device ID] [--json]');
  const res = await client(io, values).auth.test(str(values.device) ? { deviceId: str(values.device) } : {});
  if (values.json) printJson(out, res);
  else out(fields(res, ['client_id', 'mode', 'device_id', 'device_status']));
  return 0;
}

async function listenCommand(args: string[], io: Io, out: (t: string) => void, err: (t: string) => void): Promise<number> {
  const { values } = parse(args, { events: { type: 'string' }, forward: { type: 'string' } });
  if (values.help) {
    return help(
      out,
      'smsgw listen [--events sms.sent,sms.delivered,…] [--forward URL] [--json]\n\n' +
        "The account's events (of the key's mode) as they happen, without a public receiver: each is checked with the\n" +
        'signing secret of the session (printed on standard error when it opens, a new one at each connection), then\n' +
        'printed, and with --forward posted to URL with the headers a webhook delivery has (X-Webhook-Signature…), so\n' +
        'that a receiver under development checks it with that secret. Reconnects when the stream drops; Ctrl-C stops.',
    );
  }
  const forward = str(values.forward);
  if (forward !== undefined && !/^https?:\/\/[^/]/.test(forward)) throw new UsageError('--forward takes an http:// or https:// URL');
  const creds = resolveCredentials(io.env, str(values.profile));
  const stop = new AbortController();
  io.onInterrupt?.(() => stop.abort());
  return listen(
    creds,
    { ...(str(values.events) ? { events: str(values.events) } : {}), ...(forward ? { forward } : {}), json: values.json === true },
    { out, err, signal: stop.signal },
  );
}

async function configure(args: string[], io: Io, out: (t: string) => void, err: (t: string) => void): Promise<number> {
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

function help(out: (t: string) => void, text: string): number {
  out(`Usage: ${text}`);
  return 0;
}

async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of stream) chunks.push(Buffer.isBuffer(c) ? c : Buffer.from(String(c)));
  return Buffer.concat(chunks).toString('utf8');
}

/** A line from standard input: typed without echo on a terminal, or the first line piped in. */
async function readSecret(io: Io, err: (t: string) => void, prompt: string): Promise<string> {
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
