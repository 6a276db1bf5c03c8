import { AppError, type ErrorCode } from '@smsgw/platform';
import { MAX_SMS_CHARACTERS } from '@smsgw/platform';
import { parseBulkRequest, parsePersonalizedRequest, parseSendRequest } from '../src/domain/send-request';

const NOW = Date.parse('2030-01-15T10:00:00.000Z');
const DAY = 24 * 3600_000;
const valid = { to: '+33612345678', message: 'Bonjour' };

function rejection(body: Record<string, unknown>): AppError {
  try {
    parseSendRequest(body, NOW);
  } catch (err) {
    expect(err).toBeInstanceOf(AppError);
    return err as AppError;
  }
  throw new Error(`expected ${JSON.stringify(body).slice(0, 80)} to be refused`);
}

function expectSingle(body: Record<string, unknown>, field: string, code: ErrorCode): void {
  const err = rejection(body);
  expect({ code: err.code, details: err.details }).toEqual({
    code,
    details: [{ field, code, message: new AppError(code).message }],
  });
}

describe('parseSendRequest', () => {
  it('when the body is valid, then it comes back normalised with defaults', () => {
    expect(parseSendRequest({ to: '+33 6 12 34 56 78', message: 'Bonjour !' }, NOW)).toEqual({
      to: '+33612345678',
      message: 'Bonjour !',
      priority: 3,
      webhookUrl: undefined,
      metadata: undefined,
      scheduledAt: undefined,
      ttlSeconds: undefined,
      failover: false,
      replies: false,
      encrypted: false,
    });
  });

  it('when every optional field is given and valid, then each comes back typed', () => {
    const request = parseSendRequest(
      {
        to: ' +44 7911 123456 ',
        message: 'Votre colis arrive',
        priority: 1,
        webhook_url: 'https://hooks.example.com/sms?x=1',
        metadata: { order_id: 'A-42', tags: ['x'] },
        scheduled_at: '2030-01-16T10:00:00Z',
        ttl: 3600,
        failover: true,
        sim: 2,
        replies: true,
      },
      NOW,
    );

    expect(request).toEqual({
      to: '+447911123456',
      message: 'Votre colis arrive',
      priority: 1,
      webhookUrl: 'https://hooks.example.com/sms?x=1',
      metadata: { order_id: 'A-42', tags: ['x'] },
      scheduledAt: new Date('2030-01-16T10:00:00Z'),
      ttlSeconds: 3600,
      failover: true,
      sim: 2,
      replies: true,
      encrypted: false,
    });
  });

  it.each(['+33600000001', '+33600000002', '+33600000003', '+33600000004'])(
    'when the magic test number %s is given, then it is a valid number',
    (to) => {
      expect(parseSendRequest({ ...valid, to }, NOW).to).toBe(to);
    },
  );

  it.each([
    ['a national number without +', '0612345678'],
    ['a number too short', '+336123'],
    ['letters', '+33abcdefghi'],
    ['a number that is not a string', 33612345678],
    ['nothing', undefined],
    ['an unassigned country code', '+999123456789'],
  ])('when the recipient is %s, then it is INVALID_PHONE_NUMBER', (_label, to) => {
    expectSingle({ ...valid, to }, 'to', 'INVALID_PHONE_NUMBER');
  });

  it.each([
    ['missing', undefined],
    ['empty', ''],
    ['only spaces', '   \n '],
    ['not a string', 42],
  ])('when the message is %s, then it is MESSAGE_REQUIRED', (_label, message) => {
    expectSingle({ ...valid, message }, 'message', 'MESSAGE_REQUIRED');
  });

  it('when the message has 1601 characters, then it is MESSAGE_TOO_LONG, while 1600 is accepted', () => {
    expect(parseSendRequest({ ...valid, message: 'a'.repeat(MAX_SMS_CHARACTERS) }, NOW).message).toHaveLength(1600);
    expectSingle({ ...valid, message: 'a'.repeat(1601) }, 'message', 'MESSAGE_TOO_LONG');
  });

  it('when the message is 1600 emoji, then it is accepted because the limit counts characters, not UTF-16 units', () => {
    const message = '😀'.repeat(1600);
    expect(message.length).toBe(3200);

    expect(parseSendRequest({ ...valid, message }, NOW).message).toBe(message);
    expectSingle({ ...valid, message: `${message}😀` }, 'message', 'MESSAGE_TOO_LONG');
  });

  it.each([1, 2, 3, 4, 5])('when the priority is %i, then it is kept', (priority) => {
    expect(parseSendRequest({ ...valid, priority }, NOW).priority).toBe(priority);
  });

  it.each([0, 6, 2.5, '3', -1, true])('when the priority is %p, then it is INVALID_PRIORITY', (priority) => {
    expectSingle({ ...valid, priority }, 'priority', 'INVALID_PRIORITY');
  });

  it('when the metadata serialises to more than 1024 bytes, then it is METADATA_TOO_LARGE, and 1024 bytes are accepted', () => {
    const exactly = { k: 'x'.repeat(1024 - '{"k":""}'.length) };
    expect(Buffer.byteLength(JSON.stringify(exactly))).toBe(1024);

    expect(parseSendRequest({ ...valid, metadata: exactly }, NOW).metadata).toEqual(exactly);
    expectSingle({ ...valid, metadata: { k: `${exactly.k}x` } }, 'metadata', 'METADATA_TOO_LARGE');
  });

  it('when the metadata is small but counted in bytes, then multi-byte characters count for their UTF-8 size', () => {
    expectSingle({ ...valid, metadata: { k: 'é'.repeat(600) } }, 'metadata', 'METADATA_TOO_LARGE');
  });

  it.each([
    ['an array', [1, 2]],
    ['a string', 'hello'],
    ['a number', 12],
  ])('when the metadata is %s, then it is METADATA_TOO_LARGE', (_label, metadata) => {
    expectSingle({ ...valid, metadata }, 'metadata', 'METADATA_TOO_LARGE');
  });

  it.each([
    ['plain HTTP', 'http://hooks.example.com/sms'],
    ['not a URL', 'hooks.example.com'],
    ['another scheme', 'ftp://hooks.example.com/sms'],
    ['not a string', 42],
    ['with credentials', 'https://user:secret@hooks.example.com/sms'],
    ['a loopback address', 'https://127.0.0.1/sms'],
    ['a loopback address in decimal', 'https://2130706433/sms'],
    ['a private address in hex', 'https://0xa000001/sms'],
    ['the metadata address', 'https://169.254.169.254/latest'],
    ['an IPv6 loopback', 'https://[::1]/sms'],
    ['an IPv4-mapped IPv6 address', 'https://[::ffff:10.0.0.1]/sms'],
  ])('when the webhook URL is %s, then it is INVALID_WEBHOOK_URL', (_label, webhook_url) => {
    expectSingle({ ...valid, webhook_url }, 'webhook_url', 'INVALID_WEBHOOK_URL');
  });

  it('when private webhook addresses are allowed (development), then a loopback URL is accepted', () => {
    expect(parseSendRequest({ ...valid, webhook_url: 'https://127.0.0.1:9443/hooks' }, NOW, { allowPrivate: true })).toMatchObject({
      webhookUrl: 'https://127.0.0.1:9443/hooks',
    });
  });

  it('when the scheduled time is 30 days ahead or less, then it is accepted, with an offset or in UTC', () => {
    expect(parseSendRequest({ ...valid, scheduled_at: new Date(NOW + 30 * DAY).toISOString() }, NOW).scheduledAt).toEqual(
      new Date(NOW + 30 * DAY),
    );
    expect(parseSendRequest({ ...valid, scheduled_at: '2030-01-15T12:30:00+01:00' }, NOW).scheduledAt).toEqual(
      new Date('2030-01-15T11:30:00Z'),
    );
  });

  it.each([
    ['in the past', '2030-01-15T09:59:59Z'],
    ['now', '2030-01-15T10:00:00Z'],
    ['more than 30 days ahead', new Date(NOW + 30 * DAY + 1000).toISOString()],
    ['not ISO 8601', '16/01/2030 10:00'],
    ['a date without time', '2030-01-16'],
    ['a time without zone', '2030-01-16T10:00:00'],
    ['an impossible date', '2030-01-32T10:00:00Z'],
    ['an impossible hour', '2030-01-16T25:00:00Z'],
    ['a number', NOW + DAY],
  ])('when the scheduled time is %s, then it is INVALID_SCHEDULED_AT', (_label, scheduled_at) => {
    expectSingle({ ...valid, scheduled_at }, 'scheduled_at', 'INVALID_SCHEDULED_AT');
  });

  it('when optional fields are null, then they are treated as absent', () => {
    expect(parseSendRequest({ ...valid, priority: null, webhook_url: null, metadata: null, scheduled_at: null }, NOW)).toMatchObject({
      priority: 3,
      webhookUrl: undefined,
      metadata: undefined,
      scheduledAt: undefined,
    });
  });

  it('when several fields fail, then it is VALIDATION_ERROR listing each of them', () => {
    const err = rejection({ to: '12', message: '', priority: 9, webhook_url: 'http://x.example', metadata: [], scheduled_at: 'soon' });

    expect(err.code).toBe('VALIDATION_ERROR');
    expect(err.details?.map((d) => [d.field, d.code])).toEqual([
      ['to', 'INVALID_PHONE_NUMBER'],
      ['message', 'MESSAGE_REQUIRED'],
      ['priority', 'INVALID_PRIORITY'],
      ['webhook_url', 'INVALID_WEBHOOK_URL'],
      ['metadata', 'METADATA_TOO_LARGE'],
      ['scheduled_at', 'INVALID_SCHEDULED_AT'],
    ]);
    for (const detail of err.details ?? []) expect(detail.message).toEqual(expect.any(String));
  });

  it('when exactly two fields fail, then it is VALIDATION_ERROR with two details', () => {
    const err = rejection({ to: '+33612345678', message: 'a'.repeat(1601), priority: '1' });

    expect(err.code).toBe('VALIDATION_ERROR');
    expect(err.details).toHaveLength(2);
    expect(err.details?.map((d) => d.code)).toEqual(['MESSAGE_TOO_LONG', 'INVALID_PRIORITY']);
  });
});

describe('characters Postgres cannot store', () => {
  it.each([
    ['a NUL in the text', { ...valid, message: 'a\u0000b' }, 'message'],
    ['a lone high surrogate in the text', { ...valid, message: 'moitié \ud800' }, 'message'],
    ['a lone low surrogate in the text', { ...valid, message: '\udc00 seule' }, 'message'],
    ['a NUL in a metadata value', { ...valid, metadata: { order: 'A\u0000' } }, 'metadata'],
    ['a NUL in a nested metadata key', { ...valid, metadata: { a: { ['b\u0000']: 1 } } }, 'metadata'],
    ['a lone surrogate in a metadata array', { ...valid, metadata: { list: ['ok', '\ud83d'] } }, 'metadata'],
  ])('when the body has %s, then it is refused with INVALID_CHARACTER on that field', (_what, body, field) => {
    expectSingle(body, field, 'INVALID_CHARACTER');
  });

  it('when the text has a whole surrogate pair (an emoji), then it is accepted', () => {
    expect(parseSendRequest({ ...valid, message: 'Merci 😀', metadata: { mood: '😀' } }, NOW).message).toBe('Merci 😀');
  });

  it('when a bulk or personalized send has a NUL, then the failing field is named', () => {
    expect(() => parseBulkRequest({ recipients: ['+33612345678'], message: 'x\u0000' })).toThrow(
      expect.objectContaining({ code: 'INVALID_CHARACTER', details: [expect.objectContaining({ field: 'message' })] }),
    );
    expect(() =>
      parsePersonalizedRequest({
        messages: [
          { to: '+33612345678', message: 'ok' },
          { to: '+33612345679', message: 'ok', metadata: { k: '\u0000' } },
        ],
      }),
    ).toThrow(
      expect.objectContaining({ code: 'INVALID_CHARACTER', details: [expect.objectContaining({ field: 'messages[1].metadata' })] }),
    );
  });
});
