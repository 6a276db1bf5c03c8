import fs from 'node:fs';
import { ApiError, AuthenticationError, SmsGatewayError, type BatchResponse } from '@smsgw/client';
import { client, int, need, parse, printJson, readAll, SENDING, str, UsageError, help, type Io, type Print } from '../command';
import { batches, recipientsOf, type Recipient } from '../csv';
import { Progress } from '../format';
import { passphraseOf, sealed } from '../passphrase';

interface BatchOutcome {
  batch: number;
  lines: [number, number];
  recipients: number;
  batch_id?: string;
  replayed?: boolean;
  error?: { code: string; status: number; message: string; request_id?: string; lines: { line: number; to: string; code?: string }[] };
}

export async function sendBulk(args: string[], io: Io, out: Print): Promise<number> {
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
