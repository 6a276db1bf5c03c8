import { component } from '../components';
import { httpsHealthy } from '../service-process';

/** The SMPP server over TLS, with a plain HTTP health port. */
export const smpp = component<'tls' | 'health'>({
  name: 'smpp',
  dir: 'services/smpp',
  after: ['account', 'message', 'device-hub'],
  devMetricsPort: 9468,
  ports: (plan) => ({ tls: plan.ports.smpp, health: plan.ports.smppHealth }),
  env: ({ ports }) => ({ SMPP_HOST: '127.0.0.1', SMPP_TLS_PORT: String(ports.tls), SMPP_HEALTH_PORT: String(ports.health) }),
  ready: ({ ports }, { certs }) => httpsHealthy(`http://127.0.0.1:${ports.health}/readyz`, certs.caPem),
});
