import vectors from '../test-vectors.json';
import { DecryptionFailedError, isEnvelope, open, seal } from '../src';

describe('the shared test vectors', () => {
  it.each(vectors.valid)('when the envelope of "$plaintext" is opened, then its plain text comes back', (v) => {
    expect(open(v.envelope, v.passphrase)).toBe(v.plaintext);
  });

  it.each(vectors.valid)('when "$plaintext" is sealed with the vector salt and nonce, then the vector envelope comes out', (v) => {
    const sealed = seal(v.plaintext, v.passphrase, { kdf: v.kdf, salt: Buffer.from(v.salt, 'hex'), nonce: Buffer.from(v.nonce, 'hex') });
    expect(sealed).toBe(v.envelope);
  });

  it.each(vectors.invalid)('when the envelope has $why, then it does not open', (v) => {
    expect(() => open(v.envelope, v.passphrase)).toThrow(DecryptionFailedError);
  });
});

describe('seal', () => {
  it('when a text is sealed twice, then the salts and nonces differ and both open', () => {
    const a = seal('secret', 'pass', { kdf: { ln: 10, r: 8, p: 1 } });
    const b = seal('secret', 'pass', { kdf: { ln: 10, r: 8, p: 1 } });
    expect(a).not.toBe(b);
    expect(isEnvelope(a)).toBe(true);
    expect([open(a, 'pass'), open(b, 'pass')]).toEqual(['secret', 'secret']);
  });

  it('when no parameters are given, then the default scrypt cost ln=14, r=8, p=1 is written', () => {
    expect(seal('x', 'pass')).toMatch(/^\$smsgw-e2e\$v1\$scrypt\$ln=14,r=8,p=1\$/);
  });
});
