// PostgreSQL: found on PATH or in Debian's versioned directories, probed with SELECT 1, started private as the postgres user when root.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import pg from 'pg';
import { findBinary, isExecutable, isRoot } from './binaries';
import { InfraError, PROBE_TIMEOUT_MS, type InfraService } from './infra-service';
import { runToCompletion, settlesWithin, spawnLogged, waitUntilReady } from './private-instance';

export const postgres: InfraService = {
  name: 'postgres',
  debianPackage: 'postgresql',
  envVar: 'SMSGW_POSTGRES_URL',
  defaultUrl: 'postgres://postgres@127.0.0.1:5432/postgres',

  findBinaries() {
    const found = findBinary('postgres');
    if (!found) return undefined;
    // initdb must come from the same installation as the server it prepares a
    // directory for; a symlink on PATH points at that installation.
    const main = fs.realpathSync(found);
    const initdb = path.join(path.dirname(main), 'initdb');
    return isExecutable(initdb) ? { main, tools: { initdb } } : undefined;
  },

  async probe(url) {
    const client = new pg.Client({
      connectionString: url,
      connectionTimeoutMillis: PROBE_TIMEOUT_MS,
      query_timeout: PROBE_TIMEOUT_MS,
    });
    client.on('error', () => undefined);
    try {
      await client.connect();
      await client.query('SELECT 1');
    } finally {
      await settlesWithin(client.end(), PROBE_TIMEOUT_MS);
    }
  },

  async start({ dir, logFile, port, binaries, dataDir, settings = {} }) {
    await fsp.mkdir(dir, { recursive: true });
    // initdb and postgres refuse to run as root.
    const user = isRoot() ? postgresUser() : undefined;
    if (user) {
      await makeTraversable(dataDir);
      await fsp.chown(dir, user.uid, user.gid);
    }
    const hint = user
      ? ` initdb and postgres run as the postgres user, which needs search permission on every directory above ${dir}.`
      : '';
    if (!fs.existsSync(path.join(dir, 'PG_VERSION'))) {
      await runToCompletion('postgres', binaries.tools.initdb!, ['-D', dir, '-U', 'postgres', '--auth=trust', '-E', 'UTF8'], {
        logFile,
        cwd: dir,
        user,
        hint,
      });
    }
    const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
    const instance = spawnLogged(
      'postgres',
      url,
      binaries.main,
      [
        '-D',
        dir,
        '-p',
        String(port),
        '-k',
        dir,
        '-c',
        'listen_addresses=127.0.0.1',
        // A development database is disposable: trade durability for speed.
        '-c',
        'fsync=off',
        '-c',
        'synchronous_commit=off',
        '-c',
        'full_page_writes=off',
        ...Object.entries(settings).flatMap(([name, value]) => ['-c', `${name}=${value}`]),
      ],
      // SIGTERM is a "smart" shutdown that waits for every client to leave;
      // SIGINT disconnects them and still shuts down cleanly.
      { logFile, cwd: dir, user, stopSignal: 'SIGINT' },
    );
    await waitUntilReady(instance, () => postgres.probe(url), hint);
    return instance;
  },
};

/** Ids of the account that owns Debian's PostgreSQL; initdb refuses to run as root. */
function postgresUser(): { uid: number; gid: number } {
  try {
    const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
    return { uid, gid };
  } catch (err) {
    throw new InfraError(
      'postgres',
      'PostgreSQL refuses to run as root and there is no "postgres" user to run it as. ' +
        'Install the Debian package "postgresql" (it creates that user), or give the URL of a running PostgreSQL with SMSGW_POSTGRES_URL.',
      { cause: err },
    );
  }
}

/**
 * The postgres user needs to pass through `dir` to reach its data directory;
 * fs.mkdtemp and umask 077 leave it closed to others. Search permission alone
 * does not let anyone list or read what is inside.
 */
async function makeTraversable(dir: string): Promise<void> {
  const { mode } = await fsp.stat(dir);
  if ((mode & 0o001) === 0) await fsp.chmod(dir, (mode & 0o7777) | 0o001);
}
