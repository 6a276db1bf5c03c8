import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { parseAllDocuments } from 'yaml';

const CHART = path.resolve(__dirname, '..');
const REPO = path.resolve(CHART, '../..');

/** helm, installed when missing by scripts/ensure-helm.sh (the version `make chart-test` uses). */
const helm = execFileSync(path.join(REPO, 'scripts/ensure-helm.sh'), { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] }).trim();

interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: { secretKeyRef?: { name: string; key: string }; fieldRef?: { fieldPath: string } };
}
interface Container {
  name: string;
  args?: string[];
  env?: EnvVar[];
  ports?: { name: string; containerPort: number }[];
}
interface Deployment {
  kind: string;
  metadata: { name: string; labels: Record<string, string> };
  spec: { template: { spec: { containers: Container[] } } };
}

function deployments(valueSet: string, ...set: string[]): Map<string, Container> {
  const args = [
    'template',
    'smsgw',
    CHART,
    '--namespace',
    'sms',
    '--kube-version',
    '1.30.0',
    '--values',
    path.join(CHART, 'ci', `${valueSet}-values.yaml`),
  ];
  for (const s of set) args.push('--set', s);
  const out = execFileSync(helm, args, { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  const found = new Map<string, Container>();
  for (const doc of parseAllDocuments(out)) {
    const obj = doc.toJS() as Deployment | null;
    if (obj?.kind === 'Deployment' && obj.metadata.labels['app.kubernetes.io/name'] === 'sms-gateway') {
      found.set(obj.metadata.labels['app.kubernetes.io/component']!, obj.spec.template.spec.containers[0]!);
    }
  }
  return found;
}

/** What a value from a Secret looks like once Kubernetes resolved it: the keys are 32 random bytes. */
function secretValue(key: string): string {
  if (key.startsWith('otp-')) return randomBytes(32).toString('base64');
  if (key === 'smtp-url') return 'smtps://alerts:secret@mail.example.com:465';
  return 'p@ss:w/rd#1';
}

/** The container's environment as the process sees it: Secrets and the downward API resolved, `$(VAR)` expanded. */
function processEnv(container: Container): Record<string, string> {
  const env: Record<string, string> = {};
  for (const e of container.env ?? []) {
    let value = e.value ?? '';
    if (e.valueFrom?.secretKeyRef) value = secretValue(e.valueFrom.secretKeyRef.key);
    if (e.valueFrom?.fieldRef) value = 'smsgw-sms-gateway-0';
    env[e.name] = value.replace(/\$\(([A-Za-z_][A-Za-z0-9_]*)\)/g, (whole, name: string) => env[name] ?? whole);
  }
  return env;
}

type Loader = (env: NodeJS.ProcessEnv) => unknown;
/** Each service's own config loader, from its build (make test builds before it tests). */
function loader(service: string): Loader {
  const name = service.replace(/-(\w)/g, (_, c: string) => c.toUpperCase());
  const exported = `load${name.charAt(0).toUpperCase()}${name.slice(1)}Config`;
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const mod = require(path.join(REPO, 'services', service, 'dist', 'config.js')) as Record<string, Loader>;
  return mod[exported]!;
}

const SERVICES = ['account', 'message', 'otp', 'device-hub', 'scheduler', 'webhook', 'gateway', 'dashboard', 'smpp'];

describe('the environment the chart gives each service', () => {
  it.each([
    ['default', []],
    ['external', []],
    ['ha', []],
    ['default', ['tls.mode=native', 'tls.existingSecret=smsgw-tls']],
  ] as [string, string[]][])(
    'when rendered with the %s values %j, then every service accepts it and listens where its probes and Service look',
    (valueSet, set) => {
      const rendered = deployments(valueSet, ...set);
      expect([...rendered.keys()].sort()).toEqual([...SERVICES].sort());
      for (const service of SERVICES) {
        const container = rendered.get(service)!;
        expect(container.args).toEqual([`services/${service}/dist/main.js`]);
        const env = processEnv(container);
        let config: Record<string, unknown>;
        try {
          config = loader(service)(env) as Record<string, unknown>;
        } catch (err) {
          throw new Error(`${service} refuses the chart's environment: ${(err as Error).message}`, { cause: err });
        }
        const port = container.ports!.find((p) => p.name === 'grpc' || p.name === 'http' || p.name === 'smpp')!.containerPort;
        const smpp = config.listen as { tlsPort: number; healthPort: number } | undefined;
        const listens =
          (config.grpc as { port: number } | undefined)?.port ?? (config.http as { port: number } | undefined)?.port ?? smpp!.tlsPort;
        expect({ service, listens }).toEqual({ service, listens: port });
        if (service === 'smpp') expect(smpp!.healthPort).toBe(container.ports!.find((p) => p.name === 'health')!.containerPort);
        if (service === 'device-hub') {
          const agent = container.ports!.find((p) => p.name === 'agent')!.containerPort;
          expect((config.agents as { port: number }).port).toBe(agent);
        }
      }
    },
  );
});

describe('the trusted proxies of the public endpoints', () => {
  it('when tls.trustedProxies is set, then the gateway, dashboard and device-hub believe forwarded headers from those ranges only', () => {
    const rendered = deployments('default', 'tls.trustedProxies={10.42.0.0/16,192.0.2.7}');
    for (const service of ['gateway', 'dashboard', 'device-hub']) {
      const config = loader(service)(processEnv(rendered.get(service)!)) as { http?: { tls: unknown }; agents?: { tls: unknown } };
      expect({ service, tls: config.http?.tls ?? config.agents?.tls }).toEqual({
        service,
        tls: { mode: 'proxy', trustedProxies: ['10.42.0.0/16', '192.0.2.7'] },
      });
    }
  });
});
