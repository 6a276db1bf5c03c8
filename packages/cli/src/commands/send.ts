import { client, help, int, metadataOf, need, parse, printJson, SENDING, sendOptions, str, type Io, type Print } from '../command';
import { fields } from '../format';
import { passphraseOf, sealed } from '../passphrase';

export async function send(args: string[], io: Io, out: Print): Promise<number> {
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
