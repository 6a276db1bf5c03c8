// Redis: probed with PING, started private with its ACL users kept in a file.
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { Redis } from 'ioredis';
import { findBinary } from './binaries';
import { PROBE_TIMEOUT_MS, UnusableError, type InfraService } from './infra-service';
import { spawnLogged, waitUntilReady } from './private-instance';

export const redis: InfraService = {
  name: 'redis',
  debianPackage: 'redis-server',
  envVar: 'SMSGW_REDIS_URL',
  defaultUrl: 'redis://127.0.0.1:6379',

  findBinaries() {
    const main = findBinary('redis-server');
    return main ? { main, tools: {} } : undefined;
  },

  async probe(url) {
    const client = new Redis(url, {
      lazyConnect: true,
      connectTimeout: PROBE_TIMEOUT_MS,
      commandTimeout: PROBE_TIMEOUT_MS,
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
      enableOfflineQueue: false,
    });
    // Without a listener ioredis prints every connection error itself; the
    // event also carries the cause that connect() reduces to "Connection is closed".
    let connectionError: unknown;
    client.on('error', (err: unknown) => (connectionError = err));
    try {
      await client.connect().catch((err: unknown) => {
        throw connectionError ?? err;
      });
      const answer = await client.ping();
      if (answer !== 'PONG') throw new UnusableError(`PING answered ${String(answer)}`);
    } finally {
      // disconnect() on a socket that is already closed arms a 2 s timer that
      // nothing clears, which holds the launcher's event loop open.
      if (client.status === 'ready') await client.quit().catch(() => client.disconnect());
      else if (client.status !== 'end') client.disconnect();
    }
  },

  async start({ dir, logFile, port, binaries }) {
    await fsp.mkdir(dir, { recursive: true });
    const url = `redis://127.0.0.1:${port}`;
    // The stack's ACL users are saved there (ACL SAVE), so that a restarted server still knows them.
    const aclFile = path.join(dir, 'users.acl');
    if (!fs.existsSync(aclFile)) await fsp.writeFile(aclFile, '', { mode: 0o600 });
    const instance = spawnLogged(
      'redis',
      url,
      binaries.main,
      ['--bind', '127.0.0.1', '--port', String(port), '--save', '', '--appendonly', 'no', '--dir', dir, '--aclfile', aclFile],
      { logFile, cwd: dir, stopSignal: 'SIGTERM' },
    );
    await waitUntilReady(instance, () => redis.probe(url), '');
    return instance;
  },
};
