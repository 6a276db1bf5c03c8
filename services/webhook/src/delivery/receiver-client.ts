import https from 'node:https';
import { checkWebhookUrl, safePost, trustingAlso } from '@smsgw/platform';
import type { Poster } from './attempt-runner';

export interface ReceiverClientOptions {
  timeoutMs: number;
  maxResponseBytes: number;
  allowPrivateAddresses: boolean;
  /** A CA trusted on top of the system's (development receivers). */
  extraCa?: string;
}

/**
 * How the webhook service talks to receivers: `post` for deliveries,
 * `checkUrl` for endpoints being created, both under the same address rules.
 * Connections are kept alive and pooled by the checked address.
 */
export function receiverClient(options: ReceiverClientOptions): {
  post: Poster;
  checkUrl: (url: string) => Promise<string | undefined>;
  close(): void;
} {
  const agent = new https.Agent({ keepAlive: true, maxFreeSockets: 64, scheduling: 'lifo' });
  const secureContext = options.extraCa ? trustingAlso(options.extraCa) : undefined;
  const allowPrivate = options.allowPrivateAddresses;
  return {
    post: ({ url, body, headers }) =>
      safePost({
        url,
        body,
        headers,
        timeoutMs: options.timeoutMs,
        maxResponseBytes: options.maxResponseBytes,
        allowPrivate,
        agent,
        secureContext,
      }),
    checkUrl: (url) => checkWebhookUrl(url, { allowPrivate }),
    close: () => agent.destroy(),
  };
}
