// NATS with JetStream: probed as the administrator of its users, started private with its users in auth.conf.
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { connect } from '@nats-io/transport-node';
import { jetstreamManager } from '@nats-io/jetstream';
import { findBinary } from './binaries';
import { describe, PROBE_TIMEOUT_MS, UnusableError, type InfraService } from './infra-service';
import { spawnLogged, waitUntilReady } from './private-instance';

/** The administrator of each private NATS that has users, by URL: probes and clean-ups connect as it. */
export const natsAdmins = new Map<string, { user: string; password: string }>();

/** The connection options of the administrator of the NATS at `url` (none when it has no users). */
export function natsAdminOf(url: string): { user?: string; pass?: string } {
  const admin = natsAdmins.get(url);
  return admin ? { user: admin.user, pass: admin.password } : {};
}

export const natsAuthFile = (dir: string) => path.join(dir, 'auth.conf');

export const nats: InfraService = {
  name: 'nats',
  debianPackage: 'nats-server',
  envVar: 'SMSGW_NATS_URL',
  defaultUrl: 'nats://127.0.0.1:4222',

  findBinaries() {
    const main = findBinary('nats-server');
    return main ? { main, tools: {} } : undefined;
  },

  async probe(url) {
    const nc = await connect({ servers: url.split(','), timeout: PROBE_TIMEOUT_MS, reconnect: false, ...natsAdminOf(url) });
    try {
      // The services keep their events in JetStream streams; a core-only server is no use to them.
      await jetstreamManager(nc, { timeout: PROBE_TIMEOUT_MS }).catch((err: unknown) => {
        throw new UnusableError(`JetStream is not enabled: ${describe(err)}`, { cause: err });
      });
    } finally {
      await nc.close();
    }
  },

  async start({ dir, logFile, port, binaries, monitorPort }) {
    await fsp.mkdir(dir, { recursive: true });
    const url = `nats://127.0.0.1:${port}`;
    // Users come from auth.conf (empty: no authentication), which `authorize` rewrites and a restart reads again.
    const authFile = natsAuthFile(dir);
    if (!fs.existsSync(authFile)) await fsp.writeFile(authFile, '', { mode: 0o600 });
    const configFile = path.join(dir, 'nats.conf');
    await fsp.writeFile(configFile, `jetstream { store_dir: ${JSON.stringify(dir)} }\ninclude "auth.conf"\n`);
    const monitor = monitorPort ? ['-m', String(monitorPort)] : [];
    const instance = spawnLogged('nats', url, binaries.main, ['-c', configFile, '-a', '127.0.0.1', '-p', String(port), ...monitor], {
      logFile,
      cwd: dir,
      stopSignal: 'SIGTERM',
    });
    await waitUntilReady(instance, () => nats.probe(url), '');
    return instance;
  },
};
