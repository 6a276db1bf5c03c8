import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import https from 'node:https';

/**
 * Keeps a Kubernetes Secret of generated keys: created once with 32 random
 * bytes (base64) per key, or the size a key names, then never changed but to
 * add a key it lacks, or to rotate a key asked to (the hub's ticket keys,
 * whose previous keys stay beside the new ones). The chart runs this in a hook
 * Job instead of rendering random values, so `helm template`, Argo CD or Flux
 * render the same manifests every time and never replace the OTP keys (a
 * changed hash key voids every code in flight).
 */
export type SecretPlan =
  { action: 'keep' } | { action: 'create'; data: Record<string, string> } | { action: 'add'; data: Record<string, string> };

/** Base64 of `bytes` random bytes (32 unless a key says otherwise), as the services read their keys; Secret data is base64 again. */
export function generatedKey(bytes = 32): string {
  return randomBytes(bytes).toString('base64');
}

/**
 * A key of `--keys`: its name, and its size in bytes after a colon when it is not 32
 * (`hub-tls-ticket-keys:48`, the device-hub's TLS session-ticket keys).
 */
export function parseKeySpec(spec: string): { key: string; bytes: number } {
  const match = /^([A-Za-z0-9._-]+)(?::(\d+))?$/.exec(spec);
  const bytes = match?.[2] === undefined ? 32 : Number(match[2]);
  if (!match || bytes < 16 || bytes > 1024) throw new Error(`"${spec}" is not a key name, optionally followed by :<bytes> (16 to 1024)`);
  return { key: match[1]!, bytes };
}

/**
 * A key rotated once older than `maxAgeDays` (`--rotate hub-tls-ticket-keys=7`): new keys first,
 * the current ones kept second (the base64 of each, one a line), so that what they protect still
 * opens during the rotation (the hub accepts TLS session tickets of both). Its last rotation is
 * kept beside it, as `<key>-rotated-at` (an ISO date).
 */
export interface Rotation {
  key: string;
  maxAgeDays: number;
}

/** `hub-tls-ticket-keys=7`: a key of `--keys` and its age in days (1 to 365) before it rotates. */
export function parseRotation(spec: string): Rotation {
  const match = /^([A-Za-z0-9._-]+)=(\d+)$/.exec(spec);
  const days = Number(match?.[2]);
  if (!match || days < 1 || days > 365) throw new Error(`"${spec}" is not a key name, = and its days between rotations (1 to 365)`);
  return { key: match[1]!, maxAgeDays: days };
}

export const rotatedAtKey = (key: string) => `${key}-rotated-at`;

const DAY_MS = 86_400_000;
const secretText = (value: string) => Buffer.from(value, 'base64').toString('utf8');
const secretValue = (text: string) => Buffer.from(text).toString('base64');

/** The rotated value of a key of `bytes` bytes: new keys, then the current ones (the first of what it held). */
function rotated(current: string, bytes: number, generate: (bytes: number) => string): string {
  const held = Buffer.from(secretText(current).replace(/\s+/g, ''), 'base64').subarray(0, bytes);
  return `${generate(bytes)}\n${held.toString('base64')}\n`;
}

/**
 * What to do with the Secret as it is (`undefined`: it does not exist): the keys it lacks are
 * added, and a key of `rotations` older than its age rotated (one with no date of rotation is
 * rotated now); no other key is ever touched.
 */
export function planSecret(
  existing: Record<string, string> | undefined,
  keys: string[],
  generate: (bytes: number) => string = generatedKey,
  rotations: Rotation[] = [],
  now = Date.now(),
): SecretPlan {
  const specs = keys.map(parseKeySpec);
  const stamp = secretValue(new Date(now).toISOString());
  const data: Record<string, string> = {};
  for (const { key, bytes } of specs) {
    const rotation = rotations.find((r) => r.key === key);
    const value = existing?.[key];
    if (value === undefined) {
      data[key] = secretValue(generate(bytes));
      if (rotation) data[rotatedAtKey(key)] = stamp;
      continue;
    }
    if (!rotation) continue;
    const last = Date.parse(secretText(existing![rotatedAtKey(key)] ?? ''));
    if (Number.isNaN(last) || now - last >= rotation.maxAgeDays * DAY_MS) {
      data[key] = secretValue(rotated(value, bytes, generate));
      data[rotatedAtKey(key)] = stamp;
    }
  }
  if (Object.keys(data).length === 0) return { action: 'keep' };
  return existing ? { action: 'add', data } : { action: 'create', data };
}

/** The few calls of the Kubernetes API this needs. */
export interface SecretsApi {
  /** The Secret's data, or undefined when there is none of that name. */
  get(name: string): Promise<Record<string, string> | undefined>;
  /** Creates the Secret (`Opaque` unless `type` says otherwise); false when one of that name appeared meanwhile (409). */
  create(name: string, data: Record<string, string>, labels: Record<string, string>, type?: string): Promise<boolean>;
  /** Adds keys to the Secret (a merge patch of `data`). */
  addKeys(name: string, data: Record<string, string>): Promise<void>;
}

/** Also replacing a Secret's whole data (the certificates' Job). */
export interface ReplaceableSecretsApi extends SecretsApi {
  replace(name: string, data: Record<string, string>, labels: Record<string, string>, type: string): Promise<void>;
}

export async function ensureSecret(
  api: SecretsApi,
  name: string,
  keys: string[],
  labels: Record<string, string>,
  rotations: Rotation[] = [],
): Promise<SecretPlan['action']> {
  for (let attempt = 0; attempt < 2; attempt++) {
    const plan = planSecret(await api.get(name), keys, generatedKey, rotations);
    if (plan.action === 'keep') return 'keep';
    if (plan.action === 'add') {
      await api.addKeys(name, plan.data);
      return 'add';
    }
    // Another run created it between our read and our create: read it again and keep its keys.
    if (await api.create(name, plan.data, labels)) return 'create';
  }
  throw new Error(`secret ${name} was created and changed concurrently; run again`);
}

const SERVICE_ACCOUNT = '/var/run/secrets/kubernetes.io/serviceaccount';

/** The API server from inside a pod: its service account's token, CA and namespace. */
export function inClusterSecretsApi(): ReplaceableSecretsApi {
  const host = process.env.KUBERNETES_SERVICE_HOST;
  const port = process.env.KUBERNETES_SERVICE_PORT ?? '443';
  if (!host) throw new Error('not in a Kubernetes pod: KUBERNETES_SERVICE_HOST is not set');
  const token = fs.readFileSync(`${SERVICE_ACCOUNT}/token`, 'utf8').trim();
  const ca = fs.readFileSync(`${SERVICE_ACCOUNT}/ca.crt`);
  const namespace = fs.readFileSync(`${SERVICE_ACCOUNT}/namespace`, 'utf8').trim();
  const base = `/api/v1/namespaces/${encodeURIComponent(namespace)}/secrets`;
  const call = (method: string, path: string, body?: unknown, contentType = 'application/json') =>
    new Promise<{ status: number; body: string }>((resolve, reject) => {
      const payload = body === undefined ? undefined : JSON.stringify(body);
      const req = https.request(
        {
          host: host.includes(':') ? `[${host}]` : host,
          port,
          path,
          method,
          ca,
          headers: { Authorization: `Bearer ${token}`, Accept: 'application/json', ...(payload ? { 'Content-Type': contentType } : {}) },
          timeout: 10_000,
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
        },
      );
      req.on('timeout', () => req.destroy(new Error(`${method} ${path}: no answer in 10 s`)));
      req.on('error', reject);
      req.end(payload);
    });
  const fail = (what: string, res: { status: number; body: string }) => new Error(`${what}: HTTP ${res.status} ${res.body.slice(0, 300)}`);
  return {
    async get(name) {
      const res = await call('GET', `${base}/${encodeURIComponent(name)}`);
      if (res.status === 404) return undefined;
      if (res.status !== 200) throw fail(`reading secret ${name}`, res);
      return (JSON.parse(res.body) as { data?: Record<string, string> }).data ?? {};
    },
    async create(name, data, labels, type = 'Opaque') {
      const res = await call('POST', base, { apiVersion: 'v1', kind: 'Secret', type, metadata: { name, labels }, data });
      if (res.status === 409) return false;
      if (res.status !== 201) throw fail(`creating secret ${name}`, res);
      return true;
    },
    async addKeys(name, data) {
      const res = await call('PATCH', `${base}/${encodeURIComponent(name)}`, { data }, 'application/merge-patch+json');
      if (res.status !== 200) throw fail(`adding keys to secret ${name}`, res);
    },
    async replace(name, data, labels, type) {
      const res = await call('PUT', `${base}/${encodeURIComponent(name)}`, {
        apiVersion: 'v1',
        kind: 'Secret',
        type,
        metadata: { name, labels },
        data,
      });
      if (res.status !== 200) throw fail(`replacing secret ${name}`, res);
    },
  };
}
