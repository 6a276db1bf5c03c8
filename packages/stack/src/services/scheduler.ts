import { grpcService } from './grpc-service';

/** Scheduled sends and their timers; replicas share the work (`Stack.addScheduler`). */
export const scheduler = grpcService({ name: 'scheduler', key: 'scheduler', after: [], devMetricsPort: 9465 });
