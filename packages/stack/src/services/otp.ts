import { grpcService } from './grpc-service';

/** One-time passwords, sent as messages. */
export const otp = grpcService({ name: 'otp', key: 'otp', after: ['message'], devMetricsPort: 9464 });
