import { component } from '../components';
import { httpsHealthy } from '../service-process';

/** The public REST API over HTTPS; replicas share Redis (`Stack.addGateway`). */
export const gateway = component<'http'>({
  name: 'gateway',
  dir: 'services/gateway',
  after: ['account', 'message', 'otp', 'device-hub'],
  devMetricsPort: 9460,
  ports: (plan) => ({ http: plan.ports.gateway }),
  env: ({ ports }) => ({ HTTP_HOST: '127.0.0.1', HTTP_PORT: String(ports.http) }),
  ready: ({ ports }, { certs }) => httpsHealthy(`https://127.0.0.1:${ports.http}/readyz`, certs.caPem),
});
