import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import https from 'node:https';

/**
 * Keeps a Kubernetes Secret of generated keys: created once with 32 random
 * bytes (base64) per key, or the size a key names, then never changed but to
 * add a key it lacks. The chart runs this in a hook Job instead of rendering
 * random values, so `helm template`, Argo CD or Flux render the same manifests
 * every time and never replace the OTP keys (a changed hash key voids every
 * code in flight) or the hub's ticket keys (every phone's TLS session).
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

/** What to do with the Secret as it is (`undefined`: it does not exist); never touches a key that is there. */
export function planSecret(
  existing: Record<string, string> | undefined,
  keys: string[],
  generate: (bytes: number) => string = generatedKey,
): SecretPlan {
  const missing = keys.map(parseKeySpec).filter(({ key }) => !existing || !(key in existing));
  if (missing.length === 0) return { action: 'keep' };
  const data = Object.fromEntries(missing.map(({ key, bytes }) => [key, Buffer.from(generate(bytes)).toString('base64')]));
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
): Promise<SecretPlan['action']> {
  for (let attempt = 0; attempt < 2; attempt++) {
    const plan = planSecret(await api.get(name), keys);
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
