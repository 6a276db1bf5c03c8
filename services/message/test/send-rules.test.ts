import { checkSendRules } from '../src/domain/send-rules';

describe('the send rules', () => {
  it('when a number is not a valid E.164 number, then INVALID_PHONE_NUMBER names `to`', () => {
    for (const to of ['+3361', '0612345678', '+33 6 12 34 56 78', '']) {
      expect(() => checkSendRules({ to, text: 'Bonjour' })).toThrow(expect.objectContaining({ code: 'INVALID_PHONE_NUMBER' }));
    }
  });

  it('when a text has 1600 characters, counted as code points, then it passes, and one more is MESSAGE_TOO_LONG', () => {
    expect(() => checkSendRules({ to: '+33612345678', text: '😀'.repeat(1600) })).not.toThrow();
    expect(() => checkSendRules({ to: '+33612345678', text: 'a'.repeat(1601) })).toThrow(
      expect.objectContaining({ code: 'MESSAGE_TOO_LONG', details: [{ field: 'message', code: 'MESSAGE_TOO_LONG' }] }),
    );
  });
});
