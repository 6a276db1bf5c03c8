import { component } from '../components';
import { httpsHealthy } from '../service-process';

/** The web dashboard over HTTPS; it shows the SMPP server's address, so it reads that port too. */
export const dashboard = component<'http'>({
  name: 'dashboard',
  dir: 'services/dashboard',
  after: ['account', 'message', 'otp', 'device-hub', 'webhook'],
  devMetricsPort: 9467,
  ports: (plan) => ({ http: plan.ports.dashboard }),
  env: ({ ports }, { plan }) => ({
    HTTP_HOST: '127.0.0.1',
    HTTP_PORT: String(ports.http),
    DASHBOARD_SMPP_ADDRESS: `127.0.0.1:${plan.ports.smpp}`,
  }),
  ready: ({ ports }, { certs }) => httpsHealthy(`https://127.0.0.1:${ports.http}/signin`, certs.caPem),
});
