import path from 'node:path';
import type { Certs } from './certs';
import { ServiceProcess, type ServiceName } from './service-process';

/** The fixed-or-free ports a stack option may set (`StackOptions.ports`). */
export type PortKey =
  'gateway' | 'agents' | 'account' | 'message' | 'deviceHub' | 'otp' | 'scheduler' | 'webhook' | 'dashboard' | 'smpp' | 'smppHealth';
/** The gRPC services' plaintext health ports (`StackOptions.healthPorts`). */
export type HealthKey = 'account' | 'message' | 'deviceHub' | 'otp' | 'scheduler' | 'webhook';

/** Every port of a stack, chosen before anything starts (`planPorts`). */
export interface PortPlan {
  ports: Record<PortKey, number>;
  health: Record<HealthKey, number>;
  metrics: Record<ServiceName, number>;
}

/** One running copy of a component: the first (n = 1) on the plan's ports, replicas on free ones. */
export interface Instance<P extends string = string> {
  n: number;
  ports: Record<P, number>;
  /** The device-hub only: `proxy` runs it as behind a TLS-ending ingress. */
  tlsMode: 'native' | 'proxy';
}

/** What a component reads of the stack besides its own ports. */
export interface ComponentContext {
  certs: Pick<Certs, 'caPem'>;
  ticketKeysFile: string;
  plan: PortPlan;
}

/**
 * One service of the stack, as a row of the chart's `services:` is: where its build is, what must be
 * ready before it starts, its ports, its own environment and how to tell it is ready. What every
 * service shares (database, bus, addresses, certificates, metrics) is added by `serviceEnv`.
 */
export interface Component<P extends string = string> {
  name: ServiceName;
  /** The workspace whose `dist/main.js` runs it. */
  dir: string;
  /** Services that must be ready before this one starts (not every service it calls: clients connect lazily). */
  after: readonly ServiceName[];
  /** Its `/metrics` port under `make dev` (docs/operators/running-locally.md lists them). */
  devMetricsPort: number;
  /** The first instance's ports, taken from the plan; a replica gets a free port for each. */
  ports(plan: PortPlan): Record<P, number>;
  /** Its own variables: ports and what only it reads. */
  env(instance: Instance<P>, context: ComponentContext): Record<string, string>;
  ready(instance: Instance<P>, context: ComponentContext): Promise<boolean>;
}

/** Types a component's ports by their names, then stores it with the others. */
export function component<P extends string>(c: Component<P>): Component {
  // Its methods are bivariant in their parameters, so the typed row is one of the table as it is.
  return c;
}

/** The environment every service gets, and the per-service parts that `serviceEnv` lays over it. */
export interface SharedEnv {
  /** The run's database, bus, addresses, certificates, OTEL_* and the caller's `env` (in that order). */
  common: Record<string, string>;
  /** The service's gRPC certificate files. */
  grpc(name: ServiceName): Record<string, string>;
  /** The service's own NATS and Redis users. */
  bus(name: ServiceName): Record<string, string>;
}

/**
 * A service's environment: the shared part, its certificates, its own variables, then its metrics
 * port (the first instance only; replicas have none) and its bus users. Later parts win, so the
 * caller's `env` never moves a service's ports.
 */
export function serviceEnv(c: Component, instance: Instance, shared: SharedEnv, context: ComponentContext): Record<string, string> {
  return {
    ...shared.common,
    ...shared.grpc(c.name),
    ...c.env(instance, context),
    ...(instance.n === 1 ? { METRICS_PORT: String(context.plan.metrics[c.name]), METRICS_HOST: '127.0.0.1' } : {}),
    ...shared.bus(c.name),
  };
}

/** A component's process (not started): its log is `<name>.log`, `<name>-<n>.log` for a replica. */
export function processOf(
  c: Component,
  instance: Instance,
  shared: SharedEnv,
  context: ComponentContext,
  where: { repoRoot: string; logDir: string },
): ServiceProcess {
  return new ServiceProcess({
    name: c.name,
    args: [path.join(where.repoRoot, c.dir, 'dist/main.js')],
    env: serviceEnv(c, instance, shared, context),
    logFile: path.join(where.logDir, instance.n === 1 ? `${c.name}.log` : `${c.name}-${instance.n}.log`),
    ready: () => c.ready(instance, context),
  });
}

/**
 * The start-up waves: each holds the components whose `after` are all in earlier waves, in table
 * order; a wave starts together once the one before is ready. Refuses an unknown or circular `after`.
 */
export function startWaves(table: readonly Component[]): ServiceName[][] {
  const known = new Set(table.map((c) => c.name));
  for (const c of table) {
    const unknown = c.after.find((d) => !known.has(d));
    if (unknown) throw new Error(`${c.name} starts after ${unknown}, which is not in the table`);
  }
  const placed = new Set<ServiceName>();
  const waves: ServiceName[][] = [];
  while (placed.size < table.length) {
    const wave = table.filter((c) => !placed.has(c.name) && c.after.every((d) => placed.has(d))).map((c) => c.name);
    if (wave.length === 0) {
      const left = table.filter((c) => !placed.has(c.name)).map((c) => c.name);
      throw new Error(`the start order has a cycle among ${left.join(', ')}`);
    }
    for (const name of wave) placed.add(name);
    waves.push(wave);
  }
  return waves;
}

/** The stop order: the table's, reversed (the front ends first, the services they call last). */
export function stopOrder(table: readonly Component[]): ServiceName[] {
  return table.map((c) => c.name).reverse();
}
