import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { parse as parsePgUrl } from 'pg-connection-string';
import { commonConfig, connectNats, createLogger, createRedis, loadConfig, withCredentials } from '../src';

// A password with every character a URL would otherwise misread.
const PASSWORD = 'p@ss:w/rd#1?%&=+ é';

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

async function listening(port: number): Promise<void> {
  for (let i = 0; i < 200; i++) {
    const up = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, '127.0.0.1', () => (socket.destroy(), resolve(true)));
      socket.on('error', () => resolve(false));
    });
    if (up) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`nothing listens on ${port}`);
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
}

/** The settings as a service reads them from the Helm chart's environment: URLs apart from the Secrets' passwords. */
const settings = (env: Record<string, string>) =>
  loadConfig((e) => ({ database: commonConfig.database(e, 'svc'), redis: commonConfig.redis(e), nats: commonConfig.nats(e) }), env);

describe('credentials given apart from the URLs (DATABASE_PASSWORD, REDIS_USERNAME/REDIS_PASSWORD, NATS_USER/NATS_PASSWORD)', () => {
  it('when a password holds URL characters, then it is put in the URL percent-encoded and a driver reads it back whole', () => {
    const config = settings({ DATABASE_URL: 'postgresql://smsgw@db.internal:5432/smsgw?sslmode=verify-full', DATABASE_PASSWORD: PASSWORD });
    const parsed = parsePgUrl(config.database.url);
    expect(parsed).toMatchObject({
      user: 'smsgw',
      password: PASSWORD,
      host: 'db.internal',
      port: '5432',
      database: 'smsgw',
      sslmode: 'verify-full',
    });
  });

  it('when no password is given, then the URLs are used as they are', () => {
    const config = settings({ DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/smsgw' });
    expect(config.database.url).toBe('postgres://postgres@127.0.0.1:5432/smsgw');
    expect(config.redis.url).toBe('redis://127.0.0.1:6379');
    expect(config.nats).toMatchObject({ user: undefined, password: undefined });
    expect(withCredentials(undefined, 'u', 'p')).toBeUndefined();
  });

  describe('against servers that ask for them', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'smsgw-credentials-'));
    let redisPort: number;
    let natsPort: number;
    let redisServer: ChildProcess;
    let natsServer: ChildProcess;

    beforeAll(async () => {
      [redisPort, natsPort] = [await freePort(), await freePort()];
      // The password through a config file (as the bundled charts do), not a command-line argument.
      fs.writeFileSync(
        path.join(dir, 'redis.conf'),
        `port ${redisPort}\nbind 127.0.0.1\nsave ""\nappendonly no\nuser default off\nuser smsgw on ">${PASSWORD}" ~* &* +@all\n`,
      );
      redisServer = spawn('redis-server', [path.join(dir, 'redis.conf')], { stdio: 'ignore' });
      fs.writeFileSync(
        path.join(dir, 'nats.conf'),
        `listen: 127.0.0.1:${natsPort}\njetstream { store_dir: ${JSON.stringify(path.join(dir, 'js'))} }\nauthorization { user: smsgw, password: ${JSON.stringify(PASSWORD)} }\n`,
      );
      natsServer = spawn('nats-server', ['-c', path.join(dir, 'nats.conf')], { stdio: 'ignore' });
      await Promise.all([listening(redisPort), listening(natsPort)]);
    });

    afterAll(async () => {
      await Promise.all([stop(redisServer), stop(natsServer)]);
      fs.rmSync(dir, { recursive: true, force: true });
    });

    it('when REDIS_USERNAME and REDIS_PASSWORD are set, then the service authenticates, and without them Redis refuses it', async () => {
      const env = { DATABASE_URL: 'postgres://x@h/d', REDIS_URL: `redis://127.0.0.1:${redisPort}` };
      const good = createRedis({
        url: settings({ ...env, REDIS_USERNAME: 'smsgw', REDIS_PASSWORD: PASSWORD }).redis.url,
        keyPrefix: 't:',
        name: 'credentials-test',
      });
      const none = createRedis({ url: settings(env).redis.url, keyPrefix: 't:', name: 'credentials-test' });
      none.on('error', () => undefined);
      try {
        expect(await good.set('k', 'v')).toBe('OK');
        expect(await good.get('k')).toBe('v');
        await expect(none.get('k')).rejects.toThrow(/NOAUTH|WRONGPASS|auth/i);
      } finally {
        good.disconnect();
        none.disconnect();
      }
    });

    it('when NATS_USER and NATS_PASSWORD are set, then the service connects, and with a wrong password NATS refuses it', async () => {
      const log = createLogger('credentials-test', 'silent');
      const env = { DATABASE_URL: 'postgres://x@h/d', NATS_URL: `nats://127.0.0.1:${natsPort}` };
      const nats = await connectNats({
        ...settings({ ...env, NATS_USER: 'smsgw', NATS_PASSWORD: PASSWORD }).nats,
        name: 'credentials-test',
        log,
      });
      try {
        const sub = nats.nc.subscribe('hello', { max: 1 });
        nats.nc.publish('hello', 'world');
        for await (const m of sub) expect(m.string()).toBe('world');
      } finally {
        await nats.nc.close();
      }
      await expect(
        connectNats({ ...settings({ ...env, NATS_USER: 'smsgw', NATS_PASSWORD: 'wrong' }).nats, name: 'credentials-test', log }),
      ).rejects.toThrow(/auth/i);
    });
  });
});
