// The end-to-end envelope, version 1 (docs/api/encryption.md), in the browser: the passphrase
// stays in this page. WebCrypto has AES-GCM and PBKDF2 but no scrypt, so scrypt's mixing (RFC 7914)
// is written here over WebCrypto's PBKDF2-HMAC-SHA256. Checked against the shared vectors in
// Chromium (e2e/test/envelope-browser.test.ts).
'use strict';

(function (root) {
  const PREFIX = '$smsgw-e2e$v1$';
  const SHAPE =
    /^\$smsgw-e2e\$v1\$scrypt\$ln=([1-9][0-9]?),r=([1-9][0-9]?),p=([1-9])\$([A-Za-z0-9_-]+)\$([A-Za-z0-9_-]+)\$([A-Za-z0-9_-]+)$/;
  const subtle = root.crypto.subtle;

  class DecryptionFailedError extends Error {
    constructor(reason) {
      super(`the envelope does not open: ${reason}`);
      this.name = 'DecryptionFailedError';
      this.code = 'DECRYPTION_FAILED';
      this.reason = reason;
    }
  }

  function isEnvelope(text) {
    return typeof text === 'string' && text.startsWith(PREFIX);
  }

  function withinLimits(k) {
    return k.ln >= 10 && k.ln <= 20 && k.r >= 1 && k.r <= 16 && k.p >= 1 && k.p <= 4;
  }

  async function pbkdf2(password, salt, length) {
    const key = await subtle.importKey('raw', password, 'PBKDF2', false, ['deriveBits']);
    const bits = await subtle.deriveBits({ name: 'PBKDF2', hash: 'SHA-256', salt, iterations: 1 }, key, length * 8);
    return new Uint8Array(bits);
  }

  function salsa8(b, x) {
    x.set(b);
    const R = (a, s) => (a << s) | (a >>> (32 - s));
    for (let i = 0; i < 8; i += 2) {
      x[4] ^= R(x[0] + x[12], 7);
      x[8] ^= R(x[4] + x[0], 9);
      x[12] ^= R(x[8] + x[4], 13);
      x[0] ^= R(x[12] + x[8], 18);
      x[9] ^= R(x[5] + x[1], 7);
      x[13] ^= R(x[9] + x[5], 9);
      x[1] ^= R(x[13] + x[9], 13);
      x[5] ^= R(x[1] + x[13], 18);
      x[14] ^= R(x[10] + x[6], 7);
      x[2] ^= R(x[14] + x[10], 9);
      x[6] ^= R(x[2] + x[14], 13);
      x[10] ^= R(x[6] + x[2], 18);
      x[3] ^= R(x[15] + x[11], 7);
      x[7] ^= R(x[3] + x[15], 9);
      x[11] ^= R(x[7] + x[3], 13);
      x[15] ^= R(x[11] + x[7], 18);
      x[1] ^= R(x[0] + x[3], 7);
      x[2] ^= R(x[1] + x[0], 9);
      x[3] ^= R(x[2] + x[1], 13);
      x[0] ^= R(x[3] + x[2], 18);
      x[6] ^= R(x[5] + x[4], 7);
      x[7] ^= R(x[6] + x[5], 9);
      x[4] ^= R(x[7] + x[6], 13);
      x[5] ^= R(x[4] + x[7], 18);
      x[11] ^= R(x[10] + x[9], 7);
      x[8] ^= R(x[11] + x[10], 9);
      x[9] ^= R(x[8] + x[11], 13);
      x[10] ^= R(x[9] + x[8], 18);
      x[12] ^= R(x[15] + x[14], 7);
      x[13] ^= R(x[12] + x[15], 9);
      x[14] ^= R(x[13] + x[12], 13);
      x[15] ^= R(x[14] + x[13], 18);
    }
    for (let i = 0; i < 16; i++) b[i] = (b[i] + x[i]) | 0;
  }

  function blockMix(b, y, r, t, scratch) {
    t.set(b.subarray((2 * r - 1) * 16, 2 * r * 16));
    for (let i = 0; i < 2 * r; i++) {
      for (let w = 0; w < 16; w++) t[w] ^= b[i * 16 + w];
      salsa8(t, scratch);
      y.set(t, (i % 2 === 0 ? i / 2 : r + (i - 1) / 2) * 16);
    }
    b.set(y);
  }

  // Little-endian words: the browsers this runs in are all little-endian, as scrypt's words are.
  async function scrypt(password, salt, n, r, p) {
    const b = await pbkdf2(password, salt, p * 128 * r);
    const words = 32 * r;
    const v = new Int32Array(words * n);
    const y = new Int32Array(words);
    const t = new Int32Array(16);
    const scratch = new Int32Array(16);
    for (let i = 0; i < p; i++) {
      const x = new Int32Array(b.buffer, i * 128 * r, words);
      for (let k = 0; k < n; k++) {
        v.set(x, k * words);
        blockMix(x, y, r, t, scratch);
      }
      for (let k = 0; k < n; k++) {
        const j = x[(2 * r - 1) * 16] & (n - 1);
        for (let w = 0; w < words; w++) x[w] ^= v[j * words + w];
        blockMix(x, y, r, t, scratch);
      }
    }
    return pbkdf2(password, b, 32);
  }

  function b64(bytes) {
    let s = '';
    for (const byte of bytes) s += String.fromCharCode(byte);
    return btoa(s).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
  }

  function unb64(text) {
    try {
      const bin = atob(text.replace(/-/g, '+').replace(/_/g, '/'));
      const bytes = Uint8Array.from(bin, (c) => c.charCodeAt(0));
      return b64(bytes) === text ? bytes : undefined;
    } catch {
      return undefined;
    }
  }

  async function aesKey(passphrase, salt, k, usage) {
    const raw = await scrypt(new TextEncoder().encode(passphrase), salt, 2 ** k.ln, k.r, k.p);
    return subtle.importKey('raw', raw, 'AES-GCM', false, [usage]);
  }

  async function seal(plaintext, passphrase, options = {}) {
    const kdf = options.kdf || { ln: 14, r: 8, p: 1 };
    if (!withinLimits(kdf)) throw new RangeError('scrypt parameters out of range');
    const salt = options.salt || root.crypto.getRandomValues(new Uint8Array(16));
    const nonce = options.nonce || root.crypto.getRandomValues(new Uint8Array(12));
    const header = `${PREFIX}scrypt$ln=${kdf.ln},r=${kdf.r},p=${kdf.p}$${b64(salt)}$${b64(nonce)}`;
    const key = await aesKey(passphrase, salt, kdf, 'encrypt');
    const params = { name: 'AES-GCM', iv: nonce, additionalData: new TextEncoder().encode(header) };
    const body = await subtle.encrypt(params, key, new TextEncoder().encode(plaintext));
    return `${header}$${b64(new Uint8Array(body))}`;
  }

  async function open(envelope, passphrase) {
    const m = SHAPE.exec(envelope);
    if (!m) throw new DecryptionFailedError(isEnvelope(envelope) ? 'malformed envelope' : 'not an envelope');
    const kdf = { ln: Number(m[1]), r: Number(m[2]), p: Number(m[3]) };
    if (!withinLimits(kdf)) throw new DecryptionFailedError('key derivation parameters out of range');
    const [salt, nonce, body] = [unb64(m[4]), unb64(m[5]), unb64(m[6])];
    if (!salt || salt.length !== 16) throw new DecryptionFailedError('bad salt');
    if (!nonce || nonce.length !== 12) throw new DecryptionFailedError('bad nonce');
    if (!body || body.length < 16) throw new DecryptionFailedError('bad ciphertext');
    const header = envelope.slice(0, envelope.lastIndexOf('$'));
    const key = await aesKey(passphrase, salt, kdf, 'decrypt');
    let plain;
    try {
      const params = { name: 'AES-GCM', iv: nonce, additionalData: new TextEncoder().encode(header) };
      plain = await subtle.decrypt(params, key, body);
    } catch {
      throw new DecryptionFailedError('authentication failed (wrong passphrase or altered envelope)');
    }
    try {
      return new TextDecoder('utf-8', { fatal: true }).decode(plain);
    } catch {
      throw new DecryptionFailedError('plain text is not UTF-8');
    }
  }

  root.SmsgwEnvelope = { isEnvelope, seal, open, DecryptionFailedError };
})(globalThis);
