import type { PromiseClient } from '@smsgw/platform';
import type { account } from '@smsgw/proto';
import type { DeliveryLogRepository } from '../data/delivery-log.repository';
import type { DeliveryJob, DeliveryRepository } from '../data/delivery.repository';
import type { EndpointRepository } from '../data/endpoint.repository';

/** Why a URL may not receive webhooks (not HTTPS, a private address...), or undefined when it may. */
export type UrlCheck = (url: string) => Promise<string | undefined>;

/** What the webhook use cases work with, built once in `main.ts`. */
export interface WebhookService {
  endpoints: EndpointRepository;
  deliveries: DeliveryRepository;
  deliveryLog: DeliveryLogRepository;
  accounts: PromiseClient<account.AccountServiceClient>;
  checkUrl: UrlCheck;
  /** Hands a delivery leased here to this replica's dispatcher. */
  enqueue: (job: DeliveryJob) => boolean;
  /** Endpoints one client may have at once. */
  maxEndpointsPerClient: number;
}
