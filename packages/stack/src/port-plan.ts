import type { Component, HealthKey, PortKey, PortPlan } from './components';
import { freePort } from './ports';
import type { ServiceName } from './service-process';

/** The ports a caller may fix (`StackOptions`); every other one is chosen here. */
export interface PortChoices {
  isolated: boolean;
  /** Fixed ports (make dev); 0 or absent picks free ones. */
  ports?: Partial<Record<PortKey, number>>;
  /** Each gRPC service's plaintext health port; absent: its gRPC port + 100 for a fixed gRPC port, else a free one. */
  healthPorts?: Partial<Record<HealthKey, number>>;
  /** Each service's `/metrics` port; absent: the table's `devMetricsPort` for make dev, free ones for an isolated run. */
  metricsPorts?: Partial<Record<ServiceName, number>>;
}

const PORT_KEYS: readonly PortKey[] = [
  'account',
  'message',
  'deviceHub',
  'otp',
  'agents',
  'gateway',
  'scheduler',
  'webhook',
  'dashboard',
  'smpp',
  'smppHealth',
];
const HEALTH_KEYS: readonly HealthKey[] = ['account', 'message', 'deviceHub', 'otp', 'scheduler', 'webhook'];

/** Every port of the stack, before anything starts: as given, else derived (health = gRPC + 100, make dev's metrics) or free. */
export async function planPorts(
  choices: PortChoices,
  table: readonly Component[],
  free: () => Promise<number> = freePort,
): Promise<PortPlan> {
  const ports = {} as Record<PortKey, number>;
  for (const key of PORT_KEYS) ports[key] = choices.ports?.[key] || (await free());
  const health = {} as Record<HealthKey, number>;
  for (const key of HEALTH_KEYS) health[key] = choices.healthPorts?.[key] || (choices.ports?.[key] ? ports[key] + 100 : await free());
  const metrics = {} as Record<ServiceName, number>;
  for (const c of table) metrics[c.name] = choices.metricsPorts?.[c.name] ?? (choices.isolated ? await free() : c.devMetricsPort);
  return { ports, health, metrics };
}
