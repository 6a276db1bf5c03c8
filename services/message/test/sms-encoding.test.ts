import { measureSms } from '@smsgw/platform';

const a = (n: number) => 'a'.repeat(n);

describe('measureSms', () => {
  it.each([
    [1, 1],
    [160, 1],
    [161, 2],
    [306, 2],
    [307, 3],
    [459, 3],
    [460, 4],
  ])('when a GSM text has %i characters, then it takes %i part(s)', (length, parts) => {
    expect(measureSms(a(length))).toEqual({ encoding: 'GSM-7', parts, characters: length });
  });

  it('when a text uses GSM accents such as é, à, ü, ñ and Ç, then it stays GSM-7', () => {
    expect(measureSms('Réservé à Müller, Ça marche: 5€ ¿Año? Ærø ß')).toEqual({ encoding: 'GSM-7', parts: 1, characters: 43 });
  });

  it('when a text holds an accent outside the GSM alphabet such as û, then it is UCS-2', () => {
    expect(measureSms('Ça coûte 5€')).toEqual({ encoding: 'UCS-2', parts: 1, characters: 11 });
  });

  it('when a text holds extension characters such as €, then each counts as two', () => {
    expect(measureSms('€'.repeat(80))).toEqual({ encoding: 'GSM-7', parts: 1, characters: 80 });
    expect(measureSms('€'.repeat(81))).toEqual({ encoding: 'GSM-7', parts: 2, characters: 81 });
    expect(measureSms(`${a(158)}{`)).toMatchObject({ parts: 1 });
    expect(measureSms(`${a(159)}[`)).toMatchObject({ parts: 2 });
    expect(measureSms('^{}\\[~]|\f')).toMatchObject({ encoding: 'GSM-7', parts: 1 });
  });

  it('when an extension character would straddle two parts, then the escape pair moves whole to the next part', () => {
    // 152 + 2 + 152 = 306 septets fit two parts of 153 only if the pair is split.
    expect(measureSms(`${a(152)}€${a(152)}`)).toEqual({ encoding: 'GSM-7', parts: 3, characters: 305 });
    // With the pair not at the boundary, the same 306 septets take two parts.
    expect(measureSms(`${a(151)}€${a(153)}`)).toEqual({ encoding: 'GSM-7', parts: 2, characters: 305 });
  });

  it.each([
    ['ł', 'Polish ł'],
    ['😀', 'an emoji'],
    ['中', 'a CJK character'],
    ['ç', 'a lower-case c cedilla'],
  ])('when a text holds %s (%s), then it switches to UCS-2', (char) => {
    expect(measureSms(`Hello ${char}`).encoding).toBe('UCS-2');
  });

  it.each([
    [70, 1],
    [71, 2],
    [134, 2],
    [135, 3],
  ])('when a UCS-2 text has %i code units, then it takes %i part(s)', (length, parts) => {
    expect(measureSms(`ł${a(length - 1)}`)).toEqual({ encoding: 'UCS-2', parts, characters: length });
  });

  it('when an emoji would straddle two UCS-2 parts, then its surrogate pair moves whole to the next part', () => {
    // 66 + 2 + 66 = 134 code units fit two parts of 67 only if the emoji is split.
    expect(measureSms(`ł${a(65)}😀${a(66)}`)).toEqual({ encoding: 'UCS-2', parts: 3, characters: 133 });
    expect(measureSms(`ł${a(64)}😀${a(67)}`)).toEqual({ encoding: 'UCS-2', parts: 2, characters: 133 });
  });

  it('when a text is only emoji, then each counts as one character but two UCS-2 units', () => {
    expect(measureSms('😀'.repeat(35))).toEqual({ encoding: 'UCS-2', parts: 1, characters: 35 });
    expect(measureSms('😀'.repeat(36))).toEqual({ encoding: 'UCS-2', parts: 2, characters: 36 });
  });

  it('when the text is empty, then it is one GSM-7 part', () => {
    expect(measureSms('')).toEqual({ encoding: 'GSM-7', parts: 1, characters: 0 });
  });
});
