import { hashSecret, issueSecret, secretLookup, secretMatches } from '../src';

describe('secrets', () => {
  it('when a secret is issued, then it reads prefix + 40 alphanumerics and only its hash is kept', () => {
    const secret = issueSecret('sgw_live_');

    expect(secret.plain).toMatch(/^sgw_live_[A-Za-z0-9]{40}$/);
    expect(secret.lookup).toBe(secret.plain.slice('sgw_live_'.length, 'sgw_live_'.length + 12));
    expect(secret.hash).toHaveLength(32);
    expect(secret.hash.toString('utf8')).not.toContain(secret.plain);
    expect(secret.hash.equals(hashSecret(secret.plain))).toBe(true);
  });

  it('when two secrets are issued, then they differ', () => {
    expect(issueSecret('tok_').plain).not.toBe(issueSecret('tok_').plain);
  });

  it('when the lookup of a well-formed secret is asked for, then its 12 first body characters come back', () => {
    const secret = issueSecret('sgw_test_');
    expect(secretLookup('sgw_test_', secret.plain)).toBe(secret.lookup);
  });

  it('when a secret is malformed or has another prefix, then it has no lookup', () => {
    const secret = issueSecret('sgw_test_');

    expect(secretLookup('sgw_live_', secret.plain)).toBeUndefined();
    expect(secretLookup('sgw_test_', secret.plain.slice(0, -1))).toBeUndefined();
    expect(secretLookup('sgw_test_', `${secret.plain}x`)).toBeUndefined();
    expect(secretLookup('sgw_test_', `${secret.plain.slice(0, -1)}-`)).toBeUndefined();
    expect(secretLookup('sgw_test_', '')).toBeUndefined();
  });

  it('when a secret is checked against its stored hash, then only the exact secret matches', () => {
    const secret = issueSecret('sgw_live_');
    const flipped = secret.plain.slice(0, -1) + (secret.plain.endsWith('a') ? 'b' : 'a');

    expect(secretMatches(secret.plain, secret.hash)).toBe(true);
    expect(secretMatches(flipped, secret.hash)).toBe(false);
    expect(secretMatches(secret.plain, Buffer.alloc(0))).toBe(false);
    expect(secretMatches(secret.plain, secret.hash.subarray(0, 16))).toBe(false);
  });
});
