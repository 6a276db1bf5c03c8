import { presenceKey } from '@smsgw/platform';
import { createSandbox, type Sandbox } from '@smsgw/testing';
import { PresenceStore } from '../src/data/presence.store';

describe('the presence of phones, written in batches to Redis', () => {
  let sandbox: Sandbox;

  beforeAll(async () => {
    sandbox = await createSandbox({ name: 'presence', redis: true, database: false });
  });

  afterAll(async () => {
    await sandbox?.cleanUp();
  });

  afterEach(() => jest.restoreAllMocks());

  const ids = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}-${i}`);

  it('writes the phones marked together in one round trip, each with its connection and its client', async () => {
    const redis = sandbox.redis!;
    const store = new PresenceStore(redis, 60_000);
    const pipelines = jest.spyOn(redis, 'pipeline');
    const first = ids('a', 300);
    const second = ids('b', 200);

    await Promise.all([
      ...first.map((id) => store.markOnline(id, 'client-a', `conn-${id}`)),
      ...second.map((id) => store.markOnline(id, 'client-b', `conn-${id}`)),
    ]);

    expect(pipelines).toHaveBeenCalledTimes(1);
    expect(await redis.get(presenceKey('a-7'))).toBe('conn-a-7');
    expect(await redis.pttl(presenceKey('b-199'))).toBeGreaterThan(50_000);
    expect((await store.onlineSet([...first, ...second])).size).toBe(500);
    expect(new Set(await store.sampleOnline('client-b', 1000))).toEqual(new Set(second));
    const liveness = await store.liveness(['a-0']);
    expect(liveness.get('a-0')?.lastOnlineMs).toBeGreaterThan(Date.now() - 10_000);
  });

  it('writes a fleet larger than one script call in the same round trip', async () => {
    const redis = sandbox.redis!;
    const store = new PresenceStore(redis, 60_000);
    const pipelines = jest.spyOn(redis, 'pipeline');
    const fleet = ids('f', 2500);

    await Promise.all(fleet.map((id) => store.markOnline(id, 'client-f', `conn-${id}`)));

    expect(pipelines).toHaveBeenCalledTimes(1);
    expect((await store.onlineSet(fleet)).size).toBe(2500);
    expect((await store.sampleOnline('client-f', 5000)).length).toBe(2500);
  });

  it('writes the pongs of a moment together, within the refresh delay', async () => {
    const redis = sandbox.redis!;
    const store = new PresenceStore(redis, 60_000, Date.now, { refreshDelayMs: 300 });
    const pipelines = jest.spyOn(redis, 'pipeline');
    const phones = ids('g', 20);

    for (const id of phones) {
      store.refresh(id, 'client-g', `conn-${id}`);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    const written = pipelines.mock.calls.length;
    await new Promise((resolve) => setTimeout(resolve, 600));

    expect(written).toBe(0);
    expect(pipelines).toHaveBeenCalledTimes(1);
    expect((await store.onlineSet(phones)).size).toBe(20);
  });

  it('reports a batch that Redis did not take, once, and tells the callers waiting for it', async () => {
    const offline = sandbox.redis!.duplicate({ lazyConnect: true, enableOfflineQueue: false });
    offline.on('error', () => undefined);
    const failures: number[] = [];
    const store = new PresenceStore(offline, 60_000, Date.now, { onWriteFailed: (_err, phones) => failures.push(phones) });

    const marks = ids('h', 3).map((id) => store.markOnline(id, 'client-h', `conn-${id}`));

    await expect(Promise.all(marks)).rejects.toThrow();
    expect(failures).toEqual([3]);
    offline.disconnect();
  });

  it('writes the marks made while a batch is on its way in the next one, and resolves every caller', async () => {
    const redis = sandbox.redis!;
    const store = new PresenceStore(redis, 60_000);
    const pipelines = jest.spyOn(redis, 'pipeline');
    const first = store.markOnline('c-1', 'client-c', 'conn-1');
    await new Promise((resolve) => setTimeout(resolve, 30)); // the first batch leaves (10 ms)
    const later = ids('c-later', 50).map((id) => store.markOnline(id, 'client-c', `conn-${id}`));

    await Promise.all([first, ...later]);

    expect(pipelines).toHaveBeenCalledTimes(2);
    expect((await store.onlineSet(['c-1', ...ids('c-later', 50)])).size).toBe(51);
  });

  it('never brings back a phone whose connection closed before its mark was written', async () => {
    const redis = sandbox.redis!;
    const store = new PresenceStore(redis, 60_000);

    const marked = store.markOnline('d-1', 'client-d', 'conn-gone');
    await store.markOffline('d-1', 'client-d', 'conn-gone');
    await marked;

    expect(await redis.get(presenceKey('d-1'))).toBeNull();
    expect(await store.sampleOnline('client-d', 10)).toEqual([]);
  });

  it("keeps the new connection's mark when the old connection of the same phone closes", async () => {
    const redis = sandbox.redis!;
    const store = new PresenceStore(redis, 60_000);
    await store.markOnline('e-1', 'client-e', 'conn-old');

    const marked = store.markOnline('e-1', 'client-e', 'conn-new');
    await store.markOffline('e-1', 'client-e', 'conn-old');
    await marked;

    expect(await redis.get(presenceKey('e-1'))).toBe('conn-new');
    expect(await store.sampleOnline('client-e', 10)).toEqual(['e-1']);
  });
});
