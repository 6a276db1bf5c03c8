import type { PromiseClient } from '@smsgw/platform';
import type { account } from '@smsgw/proto';

/**
 * The clients' signing secrets, which sign deliveries to a message's own
 * `webhook_url`, read from the account service and kept a minute (a secret
 * is read once per client and minute, not once per delivery).
 */
export class SigningSecrets {
  private readonly cache = new Map<string, { secret: string; until: number }>();

  constructor(
    private readonly accounts: PromiseClient<account.AccountServiceClient>,
    private readonly ttlMs = 60_000,
  ) {}

  async of(clientId: string): Promise<string> {
    const hit = this.cache.get(clientId);
    if (hit && hit.until > Date.now()) return hit.secret;
    const { secret } = await this.accounts.getSigningSecret({ clientId });
    this.cache.set(clientId, { secret, until: Date.now() + this.ttlMs });
    return secret;
  }
}
