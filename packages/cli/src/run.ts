// The `smsgw` executable's entry: refuses a key on the command line, answers help and version, dispatches to
// one command of `commands/` and turns its failure into a message and an exit status.
import { ApiError, SmsGatewayError, VERSION } from '@smsgw/client';
import { UsageError, type Command, type Io } from './command';
import { cancel } from './commands/cancel';
import { configure } from './commands/configure';
import { history } from './commands/history';
import { inboxCommand } from './commands/inbox';
import { listenCommand } from './commands/listen';
import { otp } from './commands/otp';
import { send } from './commands/send';
import { sendBulk } from './commands/send-bulk';
import { stats } from './commands/stats';
import { status } from './commands/status';
import { whoami } from './commands/whoami';
import { ConfigError } from './config';

export type { Io } from './command';

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

/** The commands by name; each is one file of `commands/`. */
const COMMANDS: Record<string, Command> = {
  send,
  'send-bulk': sendBulk,
  status,
  cancel,
  history,
  inbox: inboxCommand,
  stats,
  otp,
  whoami,
  configure,
  listen: listenCommand,
};

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
    const handler = COMMANDS[command];
    if (!handler) throw new UsageError(`unknown command "${command}" (smsgw help lists them)`);
    return await handler(rest, io, out, err);
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
