import { describe, expect, it } from '@jest/globals';
import fs from 'node:fs';
import path from 'node:path';
import {
  component,
  processOf,
  serviceEnv,
  startWaves,
  stopOrder,
  type Component,
  type ComponentContext,
  type SharedEnv,
} from '../src/components';
import { planPorts } from '../src/port-plan';
import { COMPONENTS } from '../src/services/index';

const REPO_ROOT = path.resolve(__dirname, '../../..');

/** A free-port source that counts up from 20000, so that each port of a plan is known. */
function counter(start = 20_000) {
  let next = start;
  return () => Promise.resolve(next++);
}

const shared: SharedEnv = {
  common: { DATABASE_URL: 'postgres://db/run', GRPC_PORT: 'from the caller', LOG_LEVEL: 'debug' },
  grpc: (name) => ({ GRPC_TLS_CERT_FILE: `/certs/${name}.pem` }),
  bus: (name) => ({ NATS_USER: `${name}-user` }),
};

async function contextOf(choices: Parameters<typeof planPorts>[0] = { isolated: true }): Promise<ComponentContext> {
  return { certs: { caPem: 'ca' }, ticketKeysFile: '/certs/tickets', plan: await planPorts(choices, COMPONENTS, counter()) };
}

const named = (name: string) => COMPONENTS.find((c) => c.name === name)!;

describe('the table of components', () => {
  it('when the table is read, then it holds each of the nine services once, each built from a workspace of services/', () => {
    const names = COMPONENTS.map((c) => c.name);
    expect(new Set(names).size).toBe(9);
    expect([...names].sort()).toEqual(['account', 'dashboard', 'device-hub', 'gateway', 'message', 'otp', 'scheduler', 'smpp', 'webhook']);
    for (const c of COMPONENTS) expect(fs.existsSync(path.join(REPO_ROOT, c.dir, 'src/main.ts'))).toBe(true);
  });

  it('when the stack starts, then the back ends come first, the services that need them next, the front ends last', () => {
    expect(startWaves(COMPONENTS)).toEqual([
      ['account', 'scheduler', 'message'],
      ['webhook', 'otp', 'device-hub'],
      ['gateway', 'dashboard', 'smpp'],
    ]);
  });

  it('when the stack stops, then the front ends stop first and the account service last', () => {
    expect(stopOrder(COMPONENTS)).toEqual([
      'smpp',
      'dashboard',
      'gateway',
      'device-hub',
      'otp',
      'webhook',
      'message',
      'scheduler',
      'account',
    ]);
  });

  it('when a service starts after one of no table, or two wait for each other, then the order is refused with their names', () => {
    const row = (name: 'account' | 'message', after: ('account' | 'message' | 'otp')[]) =>
      component<'p'>({ ...named(name), after, ports: () => ({ p: 1 }) });
    expect(() => startWaves([row('account', ['otp'])])).toThrow('account starts after otp, which is not in the table');
    expect(() => startWaves([row('account', ['message']), row('message', ['account'])])).toThrow(
      'the start order has a cycle among account, message',
    );
  });

  it('when make dev plans its metrics ports, then they are 9460 onwards in the order the operators guide lists', async () => {
    const { plan } = await contextOf({ isolated: false });
    expect(plan.metrics).toEqual({
      gateway: 9460,
      account: 9461,
      message: 9462,
      'device-hub': 9463,
      otp: 9464,
      scheduler: 9465,
      webhook: 9466,
      dashboard: 9467,
      smpp: 9468,
    });
  });
});

describe('the port plan', () => {
  it('when gRPC ports are fixed, then their health ports are 100 above unless given, and the other ports are free ones', async () => {
    const plan = await planPorts(
      { isolated: false, ports: { account: 7001, gateway: 7000 }, healthPorts: { account: 7500 }, metricsPorts: { smpp: 9999 } },
      COMPONENTS,
      counter(),
    );
    expect(plan.ports.account).toBe(7001);
    expect(plan.ports.gateway).toBe(7000);
    expect(plan.health.account).toBe(7500);
    expect(plan.ports.message).toBeGreaterThanOrEqual(20_000);
    expect(plan.health.message).toBeGreaterThanOrEqual(20_000);
    expect(plan.metrics.smpp).toBe(9999);
    const fixed = await planPorts({ isolated: false, ports: { otp: 7004 } }, COMPONENTS, counter());
    expect(fixed.health.otp).toBe(7104);
  });

  it('when an isolated run plans its ports, then every one is free and none is used twice', async () => {
    const { plan } = await contextOf({ isolated: true });
    const all = [...Object.values(plan.ports), ...Object.values(plan.health), ...Object.values(plan.metrics)];
    expect(new Set(all).size).toBe(all.length);
    for (const port of all) expect(port).toBeGreaterThanOrEqual(20_000);
  });
});

describe("a service's environment", () => {
  it('when the first account instance is assembled, then its own ports win over the shared part and it has a metrics port and its bus user', async () => {
    const context = await contextOf();
    const account = named('account');
    const env = serviceEnv(account, { n: 1, ports: account.ports(context.plan), tlsMode: 'native' }, shared, context);
    expect(env).toEqual({
      DATABASE_URL: 'postgres://db/run',
      LOG_LEVEL: 'debug',
      GRPC_TLS_CERT_FILE: '/certs/account.pem',
      GRPC_PORT: String(context.plan.ports.account),
      GRPC_HEALTH_PORT: String(context.plan.health.account),
      METRICS_PORT: String(context.plan.metrics.account),
      METRICS_HOST: '127.0.0.1',
      NATS_USER: 'account-user',
    });
  });

  it('when a gateway replica is assembled, then it has its own port and bus user but no metrics port, and logs to gateway-2.log', async () => {
    const context = await contextOf();
    const instance = { n: 2, ports: { http: 30_000 }, tlsMode: 'native' as const };
    const process = processOf(named('gateway'), instance, shared, context, { repoRoot: '/repo', logDir: '/logs' });
    expect(process.spec.env).toMatchObject({ HTTP_HOST: '127.0.0.1', HTTP_PORT: '30000', NATS_USER: 'gateway-user' });
    expect(process.spec.env.METRICS_PORT).toBeUndefined();
    expect(process.spec.logFile).toBe('/logs/gateway-2.log');
    expect(process.spec.args).toEqual(['/repo/services/gateway/dist/main.js']);
  });

  it('when a device-hub runs as behind a TLS-ending ingress, then it is told so but still gives phones its https address', async () => {
    const context = await contextOf();
    const hub = named('device-hub') as Component<'grpc' | 'health' | 'agents'>;
    const ports = { grpc: 30_001, health: 30_002, agents: 30_003 };
    expect(hub.env({ n: 2, ports, tlsMode: 'proxy' }, context)).toEqual({
      GRPC_PORT: '30001',
      GRPC_HEALTH_PORT: '30002',
      AGENT_HOST: '127.0.0.1',
      AGENT_PORT: '30003',
      HUB_PUBLIC_URL: 'https://127.0.0.1:30003',
      HUB_TLS_TICKET_KEYS_FILE: '/certs/tickets',
      TLS_MODE: 'proxy',
    });
    expect(hub.env({ n: 1, ports, tlsMode: 'native' }, context).TLS_MODE).toBeUndefined();
  });

  it("when the dashboard is assembled, then it names the SMPP server's port of the same plan", async () => {
    const context = await contextOf();
    const dashboard = named('dashboard');
    const env = dashboard.env({ n: 1, ports: dashboard.ports(context.plan), tlsMode: 'native' }, context);
    expect(env.DASHBOARD_SMPP_ADDRESS).toBe(`127.0.0.1:${context.plan.ports.smpp}`);
    expect(env.HTTP_PORT).toBe(String(context.plan.ports.dashboard));
  });
});
