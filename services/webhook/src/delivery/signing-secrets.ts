import { TtlCache, type PromiseClient } from '@smsgw/platform';
import type { account } from '@smsgw/proto';

const MAX_ENTRIES = 10_000;

/**
 * The clients' signing secrets, which sign deliveries to a message's own
 * `webhook_url`, read from the account service and kept a minute (a secret
 * is read once per client and minute, not once per delivery). At most
 * MAX_ENTRIES clients are kept, the oldest forgotten first.
 */
export class SigningSecrets {
  private readonly cache: TtlCache<string>;

  constructor(
    private readonly accounts: PromiseClient<account.AccountServiceClient>,
    ttlMs = 60_000,
  ) {
    this.cache = new TtlCache({ maxEntries: MAX_ENTRIES, ttlMs });
  }

  async of(clientId: string): Promise<string> {
    const hit = this.cache.get(clientId);
    if (hit !== undefined) return hit;
    const { secret } = await this.accounts.getSigningSecret({ clientId });
    this.cache.set(clientId, secret);
    return secret;
  }
}
