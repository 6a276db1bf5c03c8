import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { parseAllDocuments } from 'yaml';

const CHART = path.resolve(__dirname, '..');
const REPO = path.resolve(CHART, '../..');

/** helm, installed when missing by scripts/ensure-helm.sh (the version `make chart-test` uses). */
const helm = execFileSync(path.join(REPO, 'scripts/ensure-helm.sh'), { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] }).trim();

interface EnvVar {
  name: string;
  value?: string;
}
interface Probe {
  grpc?: { port: number; service?: string };
  httpGet?: { port: string };
}
interface Container {
  name: string;
  args?: string[];
  env?: EnvVar[];
  ports?: { name: string; containerPort: number }[];
  volumeMounts?: { name: string; mountPath: string; readOnly?: boolean }[];
  startupProbe?: Probe;
  livenessProbe?: Probe;
  readinessProbe?: Probe;
}
interface PodSpec {
  containers: Container[];
  volumes?: { name: string; secret?: { secretName: string } }[];
}
interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  spec?: Record<string, unknown> & { template?: { spec: PodSpec } };
  rules?: { apiGroups: string[]; verbs: string[]; resources: string[]; resourceNames?: string[] }[];
}

function template(...set: string[]): string {
  const args = ['template', 'smsgw', CHART, '--namespace', 'sms', '--kube-version', '1.30.0'];
  for (const s of set) args.push('--set', s);
  return execFileSync(helm, args, { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, stdio: ['ignore', 'pipe', 'pipe'] });
}

function render(...set: string[]): K8sObject[] {
  return parseAllDocuments(template(...set))
    .map((doc) => doc.toJS() as K8sObject | null)
    .filter((o): o is K8sObject => o !== null);
}

/** The error helm prints when it refuses the values. */
function refusal(...set: string[]): string {
  try {
    template(...set);
  } catch (err) {
    return String((err as { stderr?: string }).stderr ?? err);
  }
  throw new Error(`helm rendered ${set.join(' ')} without complaint`);
}

const SERVICES = ['account', 'message', 'otp', 'device-hub', 'scheduler', 'webhook', 'gateway', 'dashboard', 'smpp'];
const GRPC_PORTS: Record<string, number> = {
  account: 50051,
  message: 50052,
  'device-hub': 50053,
  otp: 50054,
  scheduler: 50055,
  webhook: 50056,
};
const IDENTITIES = [...SERVICES, 'admin'];
const secretOf = (identity: string) => `smsgw-sms-gateway-${identity}-grpc-tls`;

function podSpecs(objects: K8sObject[]): Map<string, PodSpec> {
  const found = new Map<string, PodSpec>();
  for (const o of objects) {
    if (o.kind === 'Deployment' && o.metadata.labels?.['app.kubernetes.io/name'] === 'sms-gateway') {
      found.set(o.metadata.labels['app.kubernetes.io/component']!, o.spec!.template!.spec);
    }
  }
  return found;
}

const env = (c: Container) => Object.fromEntries((c.env ?? []).map((e) => [e.name, e.value]));
const certificates = (objects: K8sObject[]) => objects.filter((o) => o.kind === 'Certificate');
const certJob = (objects: K8sObject[]) => objects.find((o) => o.kind === 'Job' && o.metadata.name === 'smsgw-sms-gateway-grpc-certs');

describe('mutual TLS between the services', () => {
  const defaults = render();

  it('when rendered with the defaults, then every service reads its certificate from its own Secret, mounted read-only', () => {
    const pods = podSpecs(defaults);
    expect([...pods.keys()].sort()).toEqual([...SERVICES].sort());
    for (const service of SERVICES) {
      const pod = pods.get(service)!;
      const container = pod.containers[0]!;
      expect({ service, env: env(container) }).toMatchObject({
        service,
        env: {
          GRPC_TLS_CA_FILE: '/etc/smsgw/grpc-tls/ca.crt',
          GRPC_TLS_CERT_FILE: '/etc/smsgw/grpc-tls/tls.crt',
          GRPC_TLS_KEY_FILE: '/etc/smsgw/grpc-tls/tls.key',
        },
      });
      expect(env(container)).not.toHaveProperty('GRPC_TLS');
      expect(container.volumeMounts).toContainEqual({ name: 'grpc-tls', mountPath: '/etc/smsgw/grpc-tls', readOnly: true });
      expect(pod.volumes).toContainEqual({ name: 'grpc-tls', secret: { secretName: secretOf(service) } });
    }
  });

  it('when rendered with the defaults, then the gRPC services are probed on their plaintext health port, gRPC port + 100', () => {
    const pods = podSpecs(defaults);
    for (const [service, port] of Object.entries(GRPC_PORTS)) {
      const container = pods.get(service)!.containers[0]!;
      const health = port + 100;
      expect({ service, health: env(container).GRPC_HEALTH_PORT }).toEqual({ service, health: String(health) });
      expect(container.ports).toContainEqual(expect.objectContaining({ name: 'grpc-health', containerPort: health }));
      expect(container.ports).toContainEqual(expect.objectContaining({ name: 'grpc', containerPort: port }));
      expect(container.startupProbe!.grpc).toEqual({ port: health, service: 'liveness' });
      expect(container.livenessProbe!.grpc).toEqual({ port: health, service: 'liveness' });
      expect(container.readinessProbe!.grpc).toEqual({ port: health });
    }
    // The gateway and the dashboard serve no gRPC: no health port, HTTP probes as before.
    for (const service of ['gateway', 'dashboard']) {
      const container = pods.get(service)!.containers[0]!;
      expect(env(container)).not.toHaveProperty('GRPC_HEALTH_PORT');
      expect(container.readinessProbe!.httpGet!.port).toBe('http');
    }
  });

  it('when rendered with the defaults, then no pod may reach a health port and the operators\u2019 tool reaches the services it calls', () => {
    const policies = defaults.filter((o) => o.kind === 'NetworkPolicy' && o.metadata.labels?.['app.kubernetes.io/name'] === 'sms-gateway');
    const ingressPorts = (name: string) => {
      const np = policies.find((p) => p.metadata.name === `smsgw-sms-gateway-${name}`)!;
      return (np.spec!.ingress as { from?: unknown[]; ports: { port: number }[] }[]).map((rule) => ({
        from: JSON.stringify(rule.from ?? []),
        ports: rule.ports.map((p) => p.port),
      }));
    };
    for (const [service, port] of Object.entries(GRPC_PORTS)) {
      expect(ingressPorts(service).flatMap((r) => r.ports)).not.toContain(port + 100);
    }
    for (const service of ['account', 'device-hub', 'webhook']) {
      expect(ingressPorts(service)).toContainEqual({
        from: expect.stringContaining('"app.kubernetes.io/component":"admin"'),
        ports: [GRPC_PORTS[service]],
      });
    }
    const opened = render('networkPolicy.healthFrom[0].ipBlock.cidr=10.0.0.0/8');
    const np = opened.find((o) => o.kind === 'NetworkPolicy' && o.metadata.name === 'smsgw-sms-gateway-otp')!;
    expect(np.spec!.ingress).toContainEqual({ from: [{ ipBlock: { cidr: '10.0.0.0/8' } }], ports: [{ port: 50154, protocol: 'TCP' }] });
  });

  it('when rendered with the defaults, then a hook Job makes the CA and every identity\u2019s Secret in the cluster, with no Certificate', () => {
    const job = certJob(defaults)!;
    expect(job).toBeDefined();
    expect(job.metadata.annotations!['helm.sh/hook']).toBe('pre-install,pre-upgrade');
    const args = job.spec!.template!.spec.containers[0]!.args!;
    expect(args.slice(0, 4)).toEqual(['tools/admin/dist/cli.js', 'ensure-grpc-certs', '--ca-secret', 'smsgw-sms-gateway-grpc-ca']);
    const pairs = args[args.indexOf('--secrets') + 1]!.split(',');
    expect(pairs.sort()).toEqual(IDENTITIES.map((id) => `${id}=${secretOf(id)}`).sort());
    // get and patch on those Secrets only; create (which cannot be limited to a name); nothing else.
    const role = defaults.find((o) => o.kind === 'Role' && o.metadata.name === 'smsgw-sms-gateway-grpc-certs')!;
    expect(role.rules).toEqual([
      { apiGroups: [''], resources: ['secrets'], resourceNames: expect.any(Array), verbs: ['get', 'patch'] },
      { apiGroups: [''], resources: ['secrets'], verbs: ['create'] },
    ]);
    expect([...role.rules![0]!.resourceNames!].sort()).toEqual(['smsgw-sms-gateway-grpc-ca', ...IDENTITIES.map(secretOf)].sort());
    expect(certificates(defaults)).toEqual([]);
    // Nothing random about the certificates is rendered: two renderings agree on every object of the Job.
    const jobObjects = (objects: K8sObject[]) => JSON.stringify(objects.filter((o) => o.metadata.name === 'smsgw-sms-gateway-grpc-certs'));
    expect(jobObjects(render())).toBe(jobObjects(defaults));
    expect(template()).not.toMatch(/tls\.key:|ca\.key:/);
  });

  it('when cert-manager issues the certificates, then each identity gets a Certificate of its SPIFFE URI into the Secret its pods mount, and no hook Job', () => {
    const objects = render(
      'grpcTls.certManager.enabled=true',
      'grpcTls.certManager.issuerRef.name=smsgw-ca',
      'grpcTls.certManager.issuerRef.kind=ClusterIssuer',
    );
    const certs = certificates(objects);
    expect(certs.map((c) => c.spec!.secretName).sort()).toEqual(IDENTITIES.map(secretOf).sort());
    for (const identity of IDENTITIES) {
      const cert = certs.find((c) => c.spec!.secretName === secretOf(identity))!;
      expect(cert.apiVersion).toBe('cert-manager.io/v1');
      expect(cert.spec).toMatchObject({
        commonName: identity,
        uris: [`spiffe://smsgw/${identity}`],
        usages: expect.arrayContaining(['server auth', 'client auth']),
        issuerRef: { name: 'smsgw-ca', kind: 'ClusterIssuer', group: 'cert-manager.io' },
      });
      expect(cert.spec).not.toHaveProperty('dnsNames');
    }
    expect(certJob(objects)).toBeUndefined();
    for (const [service, pod] of podSpecs(objects)) {
      expect(pod.volumes).toContainEqual({ name: 'grpc-tls', secret: { secretName: secretOf(service) } });
    }
  });

  it('when every service brings its own Secret, then the pods mount those and nothing makes certificates', () => {
    const given = Object.fromEntries(SERVICES.map((s) => [s.replace(/-(\w)/g, (_, c: string) => c.toUpperCase()), `mine-${s}`]));
    const objects = render(...Object.entries(given).map(([key, name]) => `grpcTls.existingSecrets.${key}=${name}`));
    for (const [service, pod] of podSpecs(objects)) {
      expect(pod.volumes).toContainEqual({ name: 'grpc-tls', secret: { secretName: `mine-${service}` } });
    }
    expect(certJob(objects)).toBeUndefined();
    expect(certificates(objects)).toEqual([]);
  });

  it('when gRPC TLS is off (a mesh does mutual TLS), then every service gets GRPC_TLS=off, no certificate and no Job, and keeps its health port', () => {
    const objects = render('grpcTls.enabled=false');
    for (const [service, pod] of podSpecs(objects)) {
      const container = pod.containers[0]!;
      const vars = env(container);
      expect({ service, GRPC_TLS: vars.GRPC_TLS }).toEqual({ service, GRPC_TLS: 'off' });
      expect(Object.keys(vars).filter((name) => name.startsWith('GRPC_TLS_'))).toEqual([]);
      expect((pod.volumes ?? []).map((v) => v.name)).not.toContain('grpc-tls');
      expect((container.volumeMounts ?? []).map((m) => m.name)).not.toContain('grpc-tls');
      if (GRPC_PORTS[service]) expect(container.readinessProbe!.grpc!.port).toBe(GRPC_PORTS[service] + 100);
    }
    expect(certJob(objects)).toBeUndefined();
    expect(certificates(objects)).toEqual([]);
  });

  it.each([
    [['grpcTls.certManager.enabled=true'], 'grpcTls.certManager.enabled needs grpcTls.certManager.issuerRef.name'],
    [
      ['grpcTls.existingSecrets.account=a', 'grpcTls.existingSecrets.otp=o'],
      'grpcTls.existingSecrets names no Secret for dashboard, deviceHub, gateway, message, scheduler, smpp, webhook',
    ],
    [
      ['grpcTls.certManager.enabled=true', 'grpcTls.certManager.issuerRef.name=ca', 'grpcTls.existingSecrets.account=a'],
      'grpcTls.certManager.enabled and grpcTls.existingSecrets are both set',
    ],
    [['metrics.port=50151'], "metrics.port 50151 is the account service's health port"],
    [['grpcTls.existingSecrets.devicehub=x'], "additional properties 'devicehub' not allowed"],
    [['grpcTls.certManager.issuerRef.kind=Clusterissuer'], '/grpcTls/certManager/issuerRef/kind'],
  ] as [string[], string][])('when the values are %j, then the chart refuses them and says why', (set, message) => {
    expect(refusal(...set)).toContain(message);
  });
});
