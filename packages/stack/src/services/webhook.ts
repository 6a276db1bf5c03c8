import { grpcService } from './grpc-service';

/** Webhook deliveries: reads the signing secrets of the account service and retries through the scheduler. */
export const webhook = grpcService({ name: 'webhook', key: 'webhook', after: ['account', 'scheduler'], devMetricsPort: 9466 });
