import { component } from '../components';
import { grpcServing, httpsHealthy } from '../service-process';

/** A hub's agent URL: plain HTTP when it runs as behind a TLS-ending ingress. */
export function agentUrl(agentPort: number, tlsMode: 'native' | 'proxy'): string {
  return `${tlsMode === 'proxy' ? 'http' : 'https'}://127.0.0.1:${agentPort}`;
}

/**
 * The phones' side: their WebSocket (the agent port) and its gRPC for the other services. Every
 * replica resumes the TLS sessions its phones kept (one ticket key file); ready when both its gRPC
 * health and its agent `/readyz` answer.
 */
export const deviceHub = component<'grpc' | 'health' | 'agents'>({
  name: 'device-hub',
  dir: 'services/device-hub',
  after: ['account', 'message'],
  devMetricsPort: 9463,
  ports: (plan) => ({ grpc: plan.ports.deviceHub, health: plan.health.deviceHub, agents: plan.ports.agents }),
  env: ({ ports, tlsMode }, { ticketKeysFile }) => ({
    GRPC_PORT: String(ports.grpc),
    GRPC_HEALTH_PORT: String(ports.health),
    AGENT_HOST: '127.0.0.1',
    AGENT_PORT: String(ports.agents),
    HUB_PUBLIC_URL: agentUrl(ports.agents, 'native'),
    HUB_TLS_TICKET_KEYS_FILE: ticketKeysFile,
    ...(tlsMode === 'proxy' ? { TLS_MODE: 'proxy' } : {}),
  }),
  ready: async ({ ports, tlsMode }, { certs }) =>
    (await grpcServing(`127.0.0.1:${ports.health}`)) && httpsHealthy(`${agentUrl(ports.agents, tlsMode)}/readyz`, certs.caPem),
});
