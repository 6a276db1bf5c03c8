import { grpcService } from './grpc-service';

/** Clients, keys and users: everything else asks it who is calling. */
export const account = grpcService({ name: 'account', key: 'account', after: [], devMetricsPort: 9461 });
