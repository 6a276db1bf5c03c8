import {
  AddressRanges,
  AppError,
  FixedWindowCounter,
  isKeyScope,
  modeFromProto,
  TtlCache,
  type PromiseClient,
  type TickPipeline,
} from '@smsgw/platform';
import type { account } from '@smsgw/proto';
import type { AuthContext, GatewayContext, GatewayMiddleware } from '../context';

// The account service's key format; anything else cannot be a key.
const KEY_PATTERN = /^sgw_(live|test)_[A-Za-z0-9]{40}$/;
const MAX_ENTRIES = 10_000;

export interface AuthOptions {
  /** How long a verified key is trusted without asking the account service (bounds revocation delay). */
  ttlMs: number;
  /** How long a refused key/client pair is refused without asking again (bounds the delay for a new key). */
  negativeTtlMs: number;
  /** Refused verifications allowed per client address in a window, across every replica. */
  failures: { limit: number; windowMs: number };
}

type Verdict = { auth: AuthContext; error?: undefined } | { error: AppError; auth?: undefined };

/**
 * The key and client checks, shared by every request and by the open event streams: the account
 * service's answers kept briefly, a success for `ttlMs` (5 s at most), a refusal for `negativeTtlMs`.
 */
export class KeyVerifier {
  private readonly cache = new TtlCache<Verdict>({ maxEntries: MAX_ENTRIES });

  constructor(
    private readonly accounts: PromiseClient<account.AccountServiceClient>,
    private readonly options: Pick<AuthOptions, 'ttlMs' | 'negativeTtlMs'>,
  ) {}

  /** What was answered for this key and client within its time, if anything. */
  cached(apiKey: string, clientId: string): Verdict | undefined {
    return KEY_PATTERN.test(apiKey) && clientId.length <= 64 ? this.cache.get(`${clientId}\n${apiKey}`) : undefined;
  }

  /**
   * The account service's answer (kept for its time), or the one kept; a refusal comes back as
   * `error` (INVALID_API_KEY, INVALID_CLIENT_ID, ACCOUNT_NOT_VERIFIED: a live key of an account
   * whose address is not verified yet, kept as briefly as a refusal so that the key works within
   * `negativeTtlMs` of the verification), any other failure is thrown.
   */
  async verify(apiKey: string, clientId: string): Promise<Verdict> {
    const known = this.cached(apiKey, clientId);
    if (known) return known;
    if (!KEY_PATTERN.test(apiKey)) return { error: new AppError('INVALID_API_KEY') };
    try {
      const verified = await this.accounts.verifyApiKey({ apiKey, clientId });
      const auth: AuthContext = {
        clientId: verified.clientId,
        mode: modeFromProto(verified.mode),
        defaultTtlSeconds: verified.defaultTtlSeconds,
        destinations: {
          smsCountries: verified.smsCountries ?? [],
          otpCountries: verified.otpCountries ?? [],
          otpNumberTypes: verified.otpNumberTypes ?? [],
        },
        keyId: verified.keyId,
        // Built once per verification, kept with it: a request only looks them up.
        scopes: verified.scopes?.length ? new Set(verified.scopes.filter(isKeyScope)) : undefined,
        ranges: verified.ipRanges?.length ? new AddressRanges(verified.ipRanges) : undefined,
        dailyQuota: verified.dailyQuota ?? 0,
      };
      this.cache.set(`${clientId}\n${apiKey}`, { auth }, this.options.ttlMs);
      return { auth };
    } catch (err) {
      if (
        err instanceof AppError &&
        (err.code === 'INVALID_API_KEY' || err.code === 'INVALID_CLIENT_ID' || err.code === 'ACCOUNT_NOT_VERIFIED')
      ) {
        const error = new AppError(err.code);
        if (clientId.length <= 64) this.cache.set(`${clientId}\n${apiKey}`, { error }, this.options.negativeTtlMs);
        return { error };
      }
      throw err;
    }
  }
}

/**
 * Whether a key limited to address ranges may be used from the request's address (IP_NOT_ALLOWED
 * otherwise; an address a trusted proxy hid is in no range).
 */
export function checkKeyAddress(auth: AuthContext, address: string | undefined): void {
  if (auth.ranges && !auth.ranges.allows(address)) throw new AppError('IP_NOT_ALLOWED');
}

/**
 * Authentication rules 3 to 5 of the specification: missing headers, then
 * the key, then the client, through the `KeyVerifier`; then a live key of an account whose address
 * is not verified yet is refused (ACCOUNT_NOT_VERIFIED); then a key limited to address ranges,
 * called from elsewhere (IP_NOT_ALLOWED). Each route then checks the key's scopes (`allow`).
 *
 * Every verification the account service refuses counts against the
 * caller's address (a Redis counter, exact across replicas); past the limit,
 * that address gets 429 for any key this replica has not verified recently,
 * without reaching the account service. Only failures count, so a busy
 * client with a good key (one verification per `ttlMs`), or many clients
 * behind one address verifying at once, are never limited here; verifications
 * under way when the limit is reached may each still fail once (at most the
 * concurrency of that address). An address a trusted proxy hid is not limited
 * here (it would be everyone's); the per-client limit comes after authentication.
 */
export function authenticate(verifier: KeyVerifier, pipeline: TickPipeline, options: AuthOptions): GatewayMiddleware {
  // A fixed window per address: the first failure opens it, the window's end clears it.
  const failures = new FixedWindowCounter(pipeline, { windowMs: options.failures.windowMs });
  const failureKey = (ctx: GatewayContext) => (ctx.state.clientAddress === undefined ? undefined : `authfail:${ctx.state.clientAddress}`);

  async function refuseFloodingAddress(ctx: GatewayContext): Promise<void> {
    const key = failureKey(ctx);
    if (key === undefined) return;
    const { count, ttlMs } = await failures.read(key);
    if (count >= options.failures.limit) {
      const retryAfterSeconds = Math.max(1, Math.ceil((ttlMs > 0 ? ttlMs : options.failures.windowMs) / 1000));
      throw new AppError('RATE_LIMIT_EXCEEDED', {
        message: "Trop d'échecs d'authentification depuis cette adresse : réessayez plus tard.",
        retryAfterSeconds,
      });
    }
  }

  async function countFailure(ctx: GatewayContext): Promise<void> {
    const key = failureKey(ctx);
    if (key !== undefined) await failures.count(key);
  }

  return async (ctx, next) => {
    const apiKey = ctx.get('x-api-key');
    const clientId = ctx.get('x-client-id');
    if (!apiKey || !clientId) throw new AppError('MISSING_AUTH_HEADERS');
    const known = verifier.cached(apiKey, clientId);
    if (known?.auth) {
      checkKeyAddress(known.auth, ctx.state.clientAddress);
      ctx.state.auth = known.auth;
      return next();
    }
    if (known?.error) throw known.error;

    await refuseFloodingAddress(ctx);
    const verdict = await verifier.verify(apiKey, clientId);
    if (verdict.error) {
      // A right key of an account whose address is not verified yet is not a guess: not counted.
      if (verdict.error.code !== 'ACCOUNT_NOT_VERIFIED') await countFailure(ctx);
      throw verdict.error;
    }
    checkKeyAddress(verdict.auth, ctx.state.clientAddress);
    ctx.state.auth = verdict.auth;
    return next();
  };
}
