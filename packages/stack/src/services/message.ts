import { grpcService } from './grpc-service';

/** Messages and their states. It calls the device-hub and the scheduler, but lazily: it starts with the first wave. */
export const message = grpcService({ name: 'message', key: 'message', after: [], devMetricsPort: 9462 });
