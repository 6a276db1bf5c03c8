import { client, help, int, need, parse, printJson, SENDING, sendOptions, str, UsageError, type Io, type Print } from '../command';
import { fields, table } from '../format';

export async function otp(args: string[], io: Io, out: Print): Promise<number> {
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
