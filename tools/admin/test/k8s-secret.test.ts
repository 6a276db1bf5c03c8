import { ensureSecret, generatedKey, parseRotation, planSecret, type SecretsApi } from '../src/k8s-secret';

const b64 = (s: string) => Buffer.from(s).toString('base64');

describe('the secrets Job plan', () => {
  it('when the Secret does not exist, then it is created with every key, each the base64 of a generated key', () => {
    let n = 0;
    const plan = planSecret(undefined, ['otp-hash-key', 'otp-seal-key'], () => `key-${++n}`);
    expect(plan).toEqual({ action: 'create', data: { 'otp-hash-key': b64('key-1'), 'otp-seal-key': b64('key-2') } });
  });

  it('when the Secret has every key, then nothing changes, whatever the keys hold', () => {
    expect(
      planSecret({ 'otp-hash-key': b64('old'), 'otp-seal-key': b64('old2'), 'smtp-url': b64('x') }, ['otp-hash-key', 'otp-seal-key']),
    ).toEqual({ action: 'keep' });
  });

  it('when the Secret lacks a key, then only that key is added and the others are untouched', () => {
    expect(planSecret({ 'otp-hash-key': b64('old') }, ['otp-hash-key', 'otp-seal-key'], () => 'new')).toEqual({
      action: 'add',
      data: { 'otp-seal-key': b64('new') },
    });
  });

  it('when a key names its size (the hub ticket keys, 48 bytes), then it is generated at that size and named without it; an existing one is kept', () => {
    const plan = planSecret({ 'otp-hash-key': b64('old') }, ['otp-hash-key', 'otp-seal-key', 'hub-tls-ticket-keys:48']);
    expect(plan.action).toBe('add');
    const data = plan.action === 'add' ? plan.data : {};
    expect(Object.keys(data)).toEqual(['otp-seal-key', 'hub-tls-ticket-keys']);
    const decoded = (key: string) => Buffer.from(Buffer.from(data[key]!, 'base64').toString('ascii'), 'base64');
    expect(decoded('otp-seal-key')).toHaveLength(32);
    expect(decoded('hub-tls-ticket-keys')).toHaveLength(48);
    expect(planSecret({ 'hub-tls-ticket-keys': b64('old') }, ['hub-tls-ticket-keys:48'])).toEqual({ action: 'keep' });
    expect(() => planSecret(undefined, ['hub-tls-ticket-keys:4'])).toThrow(/16 to 1024/);
    expect(() => planSecret(undefined, ['a key'])).toThrow(/not a key name/);
  });

  it('when a rotated key is older than its days, then new keys come first and the current ones second, the date kept beside; younger, it is kept', () => {
    const current = Buffer.alloc(48, 1).toString('base64');
    const day = 86_400_000;
    const now = Date.parse('2030-01-10T00:00:00.000Z');
    const secret = { 'hub-tls-ticket-keys': b64(`${current}\n`), 'hub-tls-ticket-keys-rotated-at': b64('2030-01-01T00:00:00.000Z') };
    const rotation = [{ key: 'hub-tls-ticket-keys', maxAgeDays: 7 }];
    const fresh = Buffer.alloc(48, 2).toString('base64');

    const plan = planSecret(secret, ['hub-tls-ticket-keys:48'], () => fresh, rotation, now);

    expect(plan).toEqual({
      action: 'add',
      data: { 'hub-tls-ticket-keys': b64(`${fresh}\n${current}\n`), 'hub-tls-ticket-keys-rotated-at': b64('2030-01-10T00:00:00.000Z') },
    });
    // Rotated again later: the keys of the last rotation stay second, the oldest go.
    const again = planSecret(
      { ...secret, ...(plan.action === 'add' ? plan.data : {}) },
      ['hub-tls-ticket-keys:48'],
      () => 'x',
      rotation,
      now + 8 * day,
    );
    expect(again.action === 'add' && Buffer.from(again.data['hub-tls-ticket-keys']!, 'base64').toString()).toBe(`x\n${fresh}\n`);
    expect(planSecret(secret, ['hub-tls-ticket-keys:48'], () => fresh, rotation, now - 3 * day)).toEqual({ action: 'keep' });
    // A Secret of before the rotation (no date) is rotated at once; a new one is stamped as made.
    const undated = planSecret({ 'hub-tls-ticket-keys': b64(current) }, ['hub-tls-ticket-keys:48'], () => fresh, rotation, now);
    expect(undated.action).toBe('add');
    const made = planSecret(undefined, ['hub-tls-ticket-keys:48'], () => fresh, rotation, now);
    expect(made).toEqual({
      action: 'create',
      data: { 'hub-tls-ticket-keys': b64(fresh), 'hub-tls-ticket-keys-rotated-at': b64('2030-01-10T00:00:00.000Z') },
    });
    expect(() => parseRotation('hub-tls-ticket-keys=0')).toThrow(/1 to 365/);
    expect(parseRotation('hub-tls-ticket-keys=7')).toEqual({ key: 'hub-tls-ticket-keys', maxAgeDays: 7 });
  });

  it('when a key is generated, then it is 32 random bytes in base64, different each time', () => {
    const a = generatedKey();
    expect(Buffer.from(a, 'base64')).toHaveLength(32);
    expect(generatedKey()).not.toBe(a);
  });
});

describe('ensureSecret', () => {
  /** The API's answers as Kubernetes gives them, held in a map; `racer` creates the Secret between our read and our create once. */
  function memoryApi(racer?: Record<string, string>): SecretsApi & { secrets: Map<string, Record<string, string>> } {
    const secrets = new Map<string, Record<string, string>>();
    let raced = false;
    return {
      secrets,
      get: async (name) => secrets.get(name),
      create: async (name, data) => {
        if (racer && !raced) {
          raced = true;
          secrets.set(name, racer);
        }
        if (secrets.has(name)) return false;
        secrets.set(name, data);
        return true;
      },
      addKeys: async (name, data) => {
        secrets.set(name, { ...secrets.get(name), ...data });
      },
    };
  }

  it('when run twice, then the second run keeps the keys of the first', async () => {
    const api = memoryApi();
    expect(await ensureSecret(api, 's', ['a', 'b'], {})).toBe('create');
    const first = { ...api.secrets.get('s') };
    expect(await ensureSecret(api, 's', ['a', 'b'], {})).toBe('keep');
    expect(api.secrets.get('s')).toEqual(first);
  });

  it('when another run creates the Secret meanwhile, then its keys are kept, not replaced', async () => {
    const theirs = { a: b64('theirs-a'), b: b64('theirs-b') };
    const api = memoryApi(theirs);
    expect(await ensureSecret(api, 's', ['a', 'b'], {})).toBe('keep');
    expect(api.secrets.get('s')).toEqual(theirs);
  });
});
