import { help, parse, str, UsageError, type Io, type Print } from '../command';
import { resolveCredentials } from '../config';
import { listen } from '../listen';

export async function listenCommand(args: string[], io: Io, out: Print, err: Print): Promise<number> {
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
