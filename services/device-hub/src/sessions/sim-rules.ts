import type { PromiseClient } from '@smsgw/platform';
import type { account } from '@smsgw/proto';
import { DEFAULT_SIM_RULE, simRuleOf, type SimRule } from '../domain/sims';

const RULE_CACHE_MS = 30_000;
/** After a failed GetClient, how long the fallback is used before asking again (not at every SMS). */
const FAILURE_CACHE_MS = 5_000;

/**
 * Each client's SIM rule (account GetClient), kept 30 s like the failover delay. When the account
 * service fails, the last known rule is used; without one, round robin (the default rule): the
 * choice of a SIM never holds an SMS back.
 */
export class SimRules {
  private readonly cache = new Map<string, { rule: SimRule; until: number }>();

  constructor(
    private readonly accounts: Pick<PromiseClient<account.AccountServiceClient>, 'getClient'>,
    private readonly clock: () => number,
  ) {}

  async of(clientId: string): Promise<SimRule> {
    const now = this.clock();
    const cached = this.cache.get(clientId);
    if (cached && cached.until > now) return cached.rule;
    try {
      const client = await this.accounts.getClient({ clientId });
      const rule = simRuleOf(client.simRule, client.defaultSim);
      this.cache.set(clientId, { rule, until: now + RULE_CACHE_MS });
      return rule;
    } catch {
      const rule = cached?.rule ?? DEFAULT_SIM_RULE;
      this.cache.set(clientId, { rule, until: now + FAILURE_CACHE_MS });
      return rule;
    }
  }
}
