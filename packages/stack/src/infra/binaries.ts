// Where the servers' binaries are, and their installation with apt-get when the launcher runs as root on Debian.
import fs from 'node:fs';
import path from 'node:path';
import { InfraError, type Binaries, type InfraService } from './infra-service';
import { runToCompletion } from './private-instance';

export function isRoot(): boolean {
  return process.getuid?.() === 0;
}

export function isExecutable(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

/** Debian keeps the PostgreSQL server outside PATH, one directory per major version. */
function postgresBinDirs(): string[] {
  let versions: string[];
  try {
    versions = fs.readdirSync('/usr/lib/postgresql');
  } catch {
    return [];
  }
  return versions
    .filter((v) => /^\d+(\.\d+)?$/.test(v))
    .sort((a, b) => Number(b) - Number(a))
    .map((v) => path.join('/usr/lib/postgresql', v, 'bin'));
}

export function findBinary(name: string): string | undefined {
  const dirs = [...(process.env.PATH ?? '').split(path.delimiter).filter(Boolean), ...postgresBinDirs(), '/usr/sbin'];
  return dirs.map((dir) => path.join(dir, name)).find(isExecutable);
}

let aptUpdated = false;
/** apt-get holds a lock on the package database: installs run one after another. */
let aptQueue: Promise<unknown> = Promise.resolve();

export async function ensureBinaries(service: InfraService, dataDir: string, log: (line: string) => void): Promise<Binaries> {
  const found = service.findBinaries();
  if (found) return found;
  const canInstall = isRoot() && fs.existsSync('/etc/debian_version') && findBinary('apt-get') !== undefined;
  if (!canInstall) throw missingBinary(service);

  const install = aptQueue.then(async () => {
    const logFile = path.join(dataDir, 'apt-get.log');
    const aptGet = findBinary('apt-get')!;
    const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
    if (!aptUpdated) {
      log(`${service.name}: not installed, running apt-get update (output in ${logFile})`);
      await runToCompletion(service.name, aptGet, ['update'], { logFile, env, hint: '' });
      aptUpdated = true;
    }
    log(`${service.name}: installing the Debian package ${service.debianPackage} with apt-get`);
    await runToCompletion(service.name, aptGet, ['install', '-y', '--no-install-recommends', service.debianPackage], {
      logFile,
      env,
      hint: '',
    });
  });
  aptQueue = install.catch(() => undefined);
  await install;
  const installed = service.findBinaries();
  if (!installed) throw missingBinary(service);
  return installed;
}

function missingBinary(service: InfraService): InfraError {
  const what = { postgres: 'PostgreSQL', redis: 'Redis', nats: 'NATS with JetStream' }[service.name];
  const binary = { postgres: 'postgres and initdb', redis: 'redis-server', nats: 'nats-server' }[service.name];
  return new InfraError(
    service.name,
    `${binary} not found on PATH, in /usr/lib/postgresql/*/bin or in /usr/sbin, and nothing answers at the ${what} URL. ` +
      `Install the Debian/Ubuntu package "${service.debianPackage}" (apt-get install ${service.debianPackage}), ` +
      `or give the URL of a running ${what} with ${service.envVar}.`,
  );
}
