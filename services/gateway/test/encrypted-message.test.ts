import { AppError } from '@smsgw/platform';
import { seal } from '@smsgw/e2e-envelope';
import { parsePersonalizedRequest, parseSendRequest } from '../src/domain/send-request';

const NOW = Date.parse('2030-01-15T10:00:00Z');
const envelope = seal('x'.repeat(2000), 'pass', { kdf: { ln: 10, r: 8, p: 1 } });

function thrown(fn: () => unknown): AppError {
  try {
    fn();
  } catch (error) {
    return error as AppError;
  }
  throw new Error('no error');
}

describe('encrypted: true', () => {
  it('when the message is an envelope, then it is taken as it is, its plain length unknown to the gateway', () => {
    const request = parseSendRequest({ to: '+33612345678', message: envelope, encrypted: true }, NOW);
    expect(request).toMatchObject({ message: envelope, encrypted: true });
  });

  it('when encrypted is true but the message is no envelope, then it is VALIDATION_ERROR naming message', () => {
    const error = thrown(() => parseSendRequest({ to: '+33612345678', message: 'en clair', encrypted: true }, NOW));
    expect(error.code).toBe('VALIDATION_ERROR');
    expect(error.details).toEqual([expect.objectContaining({ field: 'message' })]);
  });

  it('when an envelope comes without encrypted, or encrypted is not a boolean, then it is refused on its field', () => {
    expect(thrown(() => parseSendRequest({ to: '+33612345678', message: envelope }, NOW)).details).toEqual([
      expect.objectContaining({ field: 'message', code: 'VALIDATION_ERROR' }),
    ]);
    expect(thrown(() => parseSendRequest({ to: '+33612345678', message: 'x', encrypted: 'yes' }, NOW)).details).toEqual([
      expect.objectContaining({ field: 'encrypted', code: 'VALIDATION_ERROR' }),
    ]);
  });

  it('when an envelope is over 8800 characters, then it is MESSAGE_TOO_LONG', () => {
    const long = `${envelope}${'A'.repeat(8800)}`;
    expect(thrown(() => parseSendRequest({ to: '+33612345678', message: long, encrypted: true }, NOW)).code).toBe('MESSAGE_TOO_LONG');
  });

  it('when a personalised batch is encrypted, then each message may say otherwise', () => {
    const batch = parsePersonalizedRequest({
      encrypted: true,
      messages: [
        { to: '+33612345678', message: envelope },
        { to: '+33612345679', message: 'en clair', encrypted: false },
      ],
    });
    expect(batch.items.map((i) => i.message)).toEqual([envelope, 'en clair']);
  });
});
