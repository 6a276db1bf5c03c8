import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** What the command line needs to reach the API. */
export interface Credentials {
  apiKey: string;
  clientId: string;
  baseUrl: string;
  caFile?: string;
  deviceId?: string;
}

/** One profile of the config file, as written (snake_case, like the API). */
export interface Profile {
  api_key?: string;
  client_id?: string;
  base_url?: string;
  ca_file?: string;
  device_id?: string;
}

export interface ConfigFile {
  profiles: Record<string, Profile>;
}

/** Where the config file is: SMSGW_CONFIG, else $XDG_CONFIG_HOME/smsgw/config.json, else ~/.config/smsgw/config.json. */
export function configPath(env: NodeJS.ProcessEnv): string {
  if (env.SMSGW_CONFIG) return env.SMSGW_CONFIG;
  const base = env.XDG_CONFIG_HOME || path.join(env.HOME || os.homedir(), '.config');
  return path.join(base, 'smsgw', 'config.json');
}

export class ConfigError extends Error {
  override name = 'ConfigError';
}

export function readConfigFile(file: string): ConfigFile {
  if (!fs.existsSync(file)) return { profiles: {} };
  let parsed: unknown;
  try {
    parsed = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (err) {
    throw new ConfigError(`${file} is not JSON: ${(err as Error).message}`);
  }
  const profiles = (parsed as ConfigFile | undefined)?.profiles;
  if (!profiles || typeof profiles !== 'object') throw new ConfigError(`${file} has no "profiles" object`);
  return { profiles };
}

/** Writes the file readable by its owner only: it holds API keys. */
export function writeConfigFile(file: string, config: ConfigFile): void {
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600 });
  fs.renameSync(tmp, file);
  fs.chmodSync(file, 0o600);
}

/**
 * The credentials of a command. Each value comes from the environment (SMSGW_API_KEY,
 * SMSGW_CLIENT_ID, SMSGW_BASE_URL, SMSGW_CA_FILE, SMSGW_DEVICE_ID) or from a profile of the
 * config file (SMSGW_PROFILE, else `default`). A profile named with --profile wins over the
 * environment: asking for a profile by name means that profile. Never from the command's
 * arguments alone: a key on a command line stays in the shell's history and in `ps`.
 */
export function resolveCredentials(env: NodeJS.ProcessEnv, profileFlag: string | undefined): Credentials {
  const file = configPath(env);
  const name = profileFlag ?? env.SMSGW_PROFILE ?? 'default';
  const config = readConfigFile(file);
  const profile = config.profiles[name];
  if (profileFlag && !profile)
    throw new ConfigError(`no profile "${profileFlag}" in ${file} (smsgw configure --profile ${profileFlag} makes it)`);
  const fromEnv: Profile = {
    api_key: env.SMSGW_API_KEY,
    client_id: env.SMSGW_CLIENT_ID,
    base_url: env.SMSGW_BASE_URL,
    ca_file: env.SMSGW_CA_FILE,
    device_id: env.SMSGW_DEVICE_ID,
  };
  const first = profileFlag ? profile : fromEnv;
  const second = profileFlag ? fromEnv : profile;
  const pick = (k: keyof Profile) => first?.[k] || second?.[k] || undefined;
  const missing = (
    [
      ['api_key', 'SMSGW_API_KEY'],
      ['client_id', 'SMSGW_CLIENT_ID'],
      ['base_url', 'SMSGW_BASE_URL'],
    ] as const
  ).filter(([k]) => !pick(k));
  if (missing.length) {
    throw new ConfigError(
      `missing ${missing.map(([, v]) => v).join(', ')}: set them in the environment, or run \`smsgw configure\` (profile "${name}" of ${file})`,
    );
  }
  return {
    apiKey: pick('api_key')!,
    clientId: pick('client_id')!,
    baseUrl: pick('base_url')!,
    ...(pick('ca_file') ? { caFile: pick('ca_file') } : {}),
    ...(pick('device_id') ? { deviceId: pick('device_id') } : {}),
  };
}
