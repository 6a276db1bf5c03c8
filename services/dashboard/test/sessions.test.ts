import { randomBytes } from 'node:crypto';
import type { Redis } from '@smsgw/platform';
import { createSandbox, sleep, type Sandbox } from '@smsgw/testing';
import { SessionStore } from '../src/http/session';

/** The session store against a real Redis, with short idle times and lifetimes. */
describe('dashboard sessions', () => {
  let sandbox: Sandbox;
  let redis: Redis;

  beforeAll(async () => {
    sandbox = await createSandbox({ name: 'dashboard-sessions', redis: true, database: false });
    redis = sandbox.redis!;
  });

  afterAll(async () => {
    await sandbox?.cleanUp();
  });

  const user = () => ({ userId: `usr_${randomBytes(6).toString('hex')}`, clientId: 'cli_test', email: 'owner@example.com' });

  it('when a password is changed, then every other session of the user ends, one kept alive past the idle time of the last sign-in included, and the changing one stays', async () => {
    const sessions = new SessionStore(redis, { idleMs: 400, lifetimeMs: 60_000 });
    const owner = user();
    const old = await sessions.create(owner);
    // The old session stays in use for longer than one idle time...
    for (let i = 0; i < 4; i++) {
      await sleep(200);
      expect(await sessions.get(old.token)).toBeDefined();
    }
    // ...then the owner signs in elsewhere and changes the password there.
    const current = await sessions.create(owner);
    for (let i = 0; i < 3; i++) {
      await sleep(200);
      expect(await sessions.get(old.token)).toBeDefined();
      expect(await sessions.get(current.token)).toBeDefined();
    }
    await sessions.endOthers(owner.userId, current.token);

    expect(await sessions.get(old.token)).toBeUndefined();
    expect(await sessions.get(current.token)).toEqual(current.session);
  });

  it('when a session is used without pause, then it still ends its lifetime after sign-in', async () => {
    const sessions = new SessionStore(redis, { idleMs: 400, lifetimeMs: 1000 });
    const { token } = await sessions.create(user());
    for (let i = 0; i < 4; i++) {
      await sleep(200);
      expect(await sessions.get(token)).toBeDefined();
    }
    await sleep(300);
    expect(await sessions.get(token)).toBeUndefined();
  });
});
