import { AppError } from '@smsgw/platform';
import { DEFAULT_SETTINGS, matchKeyword, normaliseText, validateSettings } from '../src/domain/opt-out';

describe('opt-out keywords and settings (pure rules)', () => {
  it.each([
    ['STOP', 'STOP'],
    ['  stop  ', 'STOP'],
    ['Stop.', 'STOP'],
    ['arrêt!', 'ARRET'],
    ['Arrêt !', 'ARRET'],
    ['stop  all', 'STOP ALL'],
    ['STOP!!', 'STOP!'],
  ])('when the text is %j, then it is matched as %j', (text, normalised) => {
    expect(normaliseText(text)).toBe(normalised);
  });

  it('when the whole text is an opt-out keyword, then it adds; a start keyword removes; anything else does nothing', () => {
    expect(matchKeyword('arrêt!', DEFAULT_SETTINGS)).toEqual({ action: 'add', keyword: 'ARRET' });
    expect(matchKeyword('Stop', DEFAULT_SETTINGS)).toEqual({ action: 'add', keyword: 'STOP' });
    expect(matchKeyword('unsubscribe.', DEFAULT_SETTINGS)).toEqual({ action: 'add', keyword: 'UNSUBSCRIBE' });
    expect(matchKeyword(' start ', DEFAULT_SETTINGS)).toEqual({ action: 'remove', keyword: 'START' });
    expect(matchKeyword('Stop les SMS svp', DEFAULT_SETTINGS)).toBeUndefined();
    expect(matchKeyword('STOP!!', DEFAULT_SETTINGS)).toBeUndefined();
    expect(matchKeyword('', DEFAULT_SETTINGS)).toBeUndefined();
  });

  it('when settings are valid, then they come back normalised, duplicates dropped', () => {
    expect(
      validateSettings({ optOutKeywords: ['stop', 'Arrêt', 'STOP', 'fin  sms'], startKeywords: ['reprise'], otpIgnoresOptOut: false }),
    ).toEqual({ optOutKeywords: ['STOP', 'ARRET', 'FIN SMS'], startKeywords: ['REPRISE'], otpIgnoresOptOut: false });
    expect(validateSettings({ optOutKeywords: [], startKeywords: [], otpIgnoresOptOut: true })).toMatchObject({ optOutKeywords: [] });
  });

  it('when settings are invalid, then VALIDATION_ERROR names each bad field', () => {
    const refused = (() => {
      try {
        validateSettings({
          optOutKeywords: ['STOP', '', 'X'.repeat(33), 'stop-sms'],
          startKeywords: ['START', 'stop'],
          otpIgnoresOptOut: true,
        });
      } catch (err) {
        return err;
      }
    })();
    expect(refused).toBeInstanceOf(AppError);
    expect((refused as AppError).code).toBe('VALIDATION_ERROR');
    expect((refused as AppError).details!.map((d) => d.field)).toEqual([
      'opt_out_keywords[1]',
      'opt_out_keywords[2]',
      'opt_out_keywords[3]',
      'start_keywords[1]',
    ]);
  });

  it('when a list has more than 20 keywords, then the list itself is named', () => {
    const many = Array.from({ length: 21 }, (_, i) => `K${i}`);
    expect(() => validateSettings({ optOutKeywords: many, startKeywords: [], otpIgnoresOptOut: true })).toThrow(
      expect.objectContaining({ details: [expect.objectContaining({ field: 'opt_out_keywords' })] }),
    );
  });
});
