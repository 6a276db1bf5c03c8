import { component, type Component, type HealthKey } from '../components';
import { grpcServing, type ServiceName } from '../service-process';

/**
 * A service that only serves gRPC (account, message, otp, scheduler, webhook): its gRPC port, its
 * plaintext health port, and ready when that port answers SERVING.
 */
export function grpcService(options: {
  name: ServiceName;
  key: HealthKey;
  after: readonly ServiceName[];
  devMetricsPort: number;
}): Component {
  return component<'grpc' | 'health'>({
    name: options.name,
    dir: `services/${options.name}`,
    after: options.after,
    devMetricsPort: options.devMetricsPort,
    ports: (plan) => ({ grpc: plan.ports[options.key], health: plan.health[options.key] }),
    env: ({ ports }) => ({ GRPC_PORT: String(ports.grpc), GRPC_HEALTH_PORT: String(ports.health) }),
    ready: ({ ports }) => grpcServing(`127.0.0.1:${ports.health}`),
  });
}
