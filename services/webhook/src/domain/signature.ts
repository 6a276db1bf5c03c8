import { createHmac } from 'node:crypto';

/** `X-Webhook-Signature`: hex HMAC-SHA256 of the exact body bytes (UTF-8) under the destination's secret. */
export function signBody(secret: string, body: string): string {
  return createHmac('sha256', secret).update(body, 'utf8').digest('hex');
}
