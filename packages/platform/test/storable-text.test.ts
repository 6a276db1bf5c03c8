import { isStorableJson, isStorableText, storableText } from '../src';

describe('isStorableText', () => {
  it('when text holds U+0000 or a lone surrogate, then it is not storable', () => {
    expect(isStorableText('a\u0000b')).toBe(false);
    expect(isStorableText('\ud800')).toBe(false);
    expect(isStorableText('x\udc00')).toBe(false);
    expect(isStorableText('\udc00\ud800')).toBe(false);
  });

  it('when text is ordinary, accented or holds paired surrogates (emoji), then it is storable', () => {
    expect(isStorableText('')).toBe(true);
    expect(isStorableText('Bonjour, été ! \u00a0\t\n')).toBe(true);
    expect(isStorableText('👍 \ud83d\ude00')).toBe(true);
  });
});

describe('storableText', () => {
  it('when text holds U+0000 or lone surrogates, then each becomes U+FFFD and the rest, emoji included, is kept', () => {
    expect(storableText('a\u0000b\ud800c\udc00')).toBe('a\ufffdb\ufffdc\ufffd');
    expect(storableText('👍 été')).toBe('👍 été');
    expect(isStorableText(storableText('\udc00\ud800\u0000'))).toBe(true);
  });
});

describe('isStorableJson', () => {
  it('when any key or string at any depth is not storable, then the value is not', () => {
    expect(isStorableJson({ a: [1, { b: 'ok' }] })).toBe(true);
    expect(isStorableJson({ a: [1, { b: 'no\u0000' }] })).toBe(false);
    expect(isStorableJson({ ['k\ud800']: 1 })).toBe(false);
    expect(isStorableJson(['\udfff'])).toBe(false);
    expect(isStorableJson(null)).toBe(true);
    expect(isStorableJson(42)).toBe(true);
  });
});
