import { ADDRCONFIG } from 'node:dns';
import { lookup } from 'node:dns/promises';
import https from 'node:https';
import tls from 'node:tls';
import { classifyAddress, parseWebhookUrl, type WebhookTarget } from './address-policy';

/** Resolves a host name to its addresses (all of them). */
export type Resolver = (hostname: string) => Promise<string[]>;

// ADDRCONFIG as net.connect does by default: no IPv6 answers on a host without IPv6, where the first one would fail.
export const systemResolver: Resolver = async (hostname) =>
  (await lookup(hostname, { all: true, verbatim: true, hints: ADDRCONFIG })).map((a) => a.address);

/**
 * The address to connect to for a checked target: its literal IP, or the
 * first address of its name once every address of the name is public (a name
 * with one private address among public ones is refused: which one a later
 * lookup would give is not ours to choose).
 */
export async function resolvePublic(
  target: WebhookTarget,
  options: { allowPrivate: boolean; resolver?: Resolver },
): Promise<{ ok: true; address: string } | { ok: false; reason: string }> {
  if (target.literalAddress) return { ok: true, address: target.literalAddress };
  let addresses: string[];
  try {
    addresses = await (options.resolver ?? systemResolver)(target.hostname);
  } catch (err) {
    return { ok: false, reason: `DNS: ${(err as NodeJS.ErrnoException).code ?? 'lookup failed'}` };
  }
  if (addresses.length === 0) return { ok: false, reason: 'DNS: no address' };
  if (!options.allowPrivate) {
    for (const address of addresses) {
      const verdict = classifyAddress(address);
      // The reason names the host, never the address it resolved to: whoever reads it (an account owner in the delivery log) must not learn internal DNS answers.
      if (!verdict.public) return { ok: false, reason: `blocked host ${target.hostname} (resolves to a ${verdict.reason} address)` };
    }
  }
  return { ok: true, address: addresses[0]! };
}

export const SAFE_POST_TIMEOUT_MS = 5000;
export const SAFE_POST_MAX_RESPONSE_BYTES = 64 * 1024;

/**
 * Checks a webhook URL as it would be at delivery time: parse, resolve (within
 * `timeoutMs`), classify. Undefined when allowed.
 */
export async function checkWebhookUrl(
  url: string,
  options: { allowPrivate: boolean; resolver?: Resolver; timeoutMs?: number },
): Promise<string | undefined> {
  const parsed = parseWebhookUrl(url, options);
  if (!parsed.ok) return parsed.reason;
  const resolved = await within(resolvePublic(parsed.target, options), options.timeoutMs ?? SAFE_POST_TIMEOUT_MS);
  if (!resolved) return 'DNS: timeout';
  return resolved.ok ? undefined : resolved.reason;
}

export interface SafePostRequest {
  url: string;
  body: string;
  headers: Record<string, string>;
  /** The whole attempt: DNS, connect, TLS, request and response. */
  timeoutMs?: number;
  /** How much of the answer is read before the connection is cut. */
  maxResponseBytes?: number;
  allowPrivate: boolean;
  resolver?: Resolver;
  /**
   * Keep-alive connections. One agent may serve every receiver: the request
   * names the checked address as its host, so the agent pools connections by
   * address, port and TLS server name, never by a name that may now resolve
   * elsewhere.
   */
  agent?: https.Agent;
  /** The trusted CAs, when not only the system's (see `trustingAlso`). */
  secureContext?: tls.SecureContext;
}

export interface SafePostResult {
  /** A 2xx answer. */
  ok: boolean;
  status?: number;
  latencyMs: number;
  /** A short English reason when not ok: `timeout`, `connection refused`, `TLS: ...`, `redirect not followed`, `blocked address ...` (an IP in the URL), `blocked host ...` (a name, without the addresses it resolved to). */
  error?: string;
}

type Outcome = Omit<SafePostResult, 'latencyMs'>;

/**
 * A TLS context that trusts the system's CAs and `extraCaPem` too (a local
 * CA in development). Built once: per-request `ca` lists are costly.
 */
export function trustingAlso(extraCaPem: string): tls.SecureContext {
  return tls.createSecureContext({ ca: [...tls.rootCertificates, extraCaPem] });
}

const TLS_REASONS: Record<string, string> = {
  DEPTH_ZERO_SELF_SIGNED_CERT: 'self-signed certificate',
  SELF_SIGNED_CERT_IN_CHAIN: 'self-signed certificate in the chain',
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'certificate not trusted',
  UNABLE_TO_GET_ISSUER_CERT: 'certificate not trusted',
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: 'certificate not trusted',
  CERT_UNTRUSTED: 'certificate not trusted',
  CERT_HAS_EXPIRED: 'certificate expired',
  CERT_NOT_YET_VALID: 'certificate not yet valid',
  CERT_REVOKED: 'certificate revoked',
  ERR_TLS_CERT_ALTNAME_INVALID: 'certificate does not name the host',
  ERR_SSL_WRONG_VERSION_NUMBER: 'the server does not speak TLS',
};

/** Node's error in a few English words; messages that could quote the request are never passed on. */
function describe(err: NodeJS.ErrnoException): string {
  const code = err.code ?? '';
  switch (code) {
    case 'ECONNREFUSED':
      return 'connection refused';
    case 'ECONNRESET':
      return 'connection reset';
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return 'host unreachable';
    case 'ETIMEDOUT':
      return 'timeout';
    case 'EPROTO':
      return 'TLS: protocol error';
  }
  if (TLS_REASONS[code]) return `TLS: ${TLS_REASONS[code]}`;
  if (code.startsWith('ERR_SSL_') || code.startsWith('ERR_TLS_') || code.includes('CERT')) return `TLS: ${code}`;
  return code ? `network error ${code}` : 'network error';
}

/** `promise`, or undefined once `ms` have passed. */
async function within<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<undefined>((resolve) => {
    timer = setTimeout(resolve, Math.max(0, ms), undefined);
  });
  try {
    return await Promise.race([promise, expired]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * One HTTPS POST to a receiver that the platform does not trust: the host is
 * resolved and every address checked (unless `allowPrivate`), the connection
 * goes to the very address that was checked (no second lookup, so no DNS
 * rebinding between check and connect), redirects are not followed, at most
 * `maxResponseBytes` of the answer are read, and the whole attempt, DNS
 * included, is bounded by `timeoutMs`. Network outcomes are results, never
 * exceptions.
 */
export async function safePost(req: SafePostRequest): Promise<SafePostResult> {
  const started = performance.now();
  const timeoutMs = req.timeoutMs ?? SAFE_POST_TIMEOUT_MS;
  // Set on the outcome, not a spread copy with a field more (docs/contributors/conventions.md, "Busy paths").
  const done = (r: Outcome): SafePostResult => Object.assign(r, { latencyMs: performance.now() - started });
  const parsed = parseWebhookUrl(req.url, { allowPrivate: req.allowPrivate });
  if (!parsed.ok) return done({ ok: false, error: parsed.reason });
  const resolved = await within(resolvePublic(parsed.target, req), timeoutMs);
  if (!resolved) return done({ ok: false, error: 'timeout' });
  if (!resolved.ok) return done({ ok: false, error: resolved.reason });
  return done(await exchange(req, parsed.target, resolved.address, timeoutMs - (performance.now() - started)));
}

function exchange(req: SafePostRequest, target: WebhookTarget, address: string, msLeft: number): Promise<Outcome> {
  const body = Buffer.from(req.body, 'utf8');
  const maxResponseBytes = req.maxResponseBytes ?? SAFE_POST_MAX_RESPONSE_BYTES;
  let request: ReturnType<typeof https.request>;
  try {
    request = https.request({
      // The checked address itself, not the name with a `lookup` that answers it: Node then makes no lookup at all.
      host: address,
      port: target.url.port || 443,
      path: `${target.url.pathname}${target.url.search}`,
      method: 'POST',
      // SNI and the certificate check use the name; an IP host is checked against the certificate's IP addresses.
      servername: target.literalAddress ? undefined : target.hostname,
      headers: Object.assign({}, req.headers, { Host: target.url.host, 'Content-Length': String(body.length) }),
      agent: req.agent ?? false,
      ...(req.secureContext ? { secureContext: req.secureContext } : {}),
    });
  } catch (err) {
    // A header name or value Node refuses (a line break in it): the message would quote it.
    return Promise.resolve({ ok: false, error: `invalid request ${(err as NodeJS.ErrnoException).code ?? ''}`.trim() });
  }

  return new Promise<Outcome>((resolve) => {
    let settled = false;
    const finish = (r: Outcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(r);
    };
    const timer = setTimeout(
      () => {
        finish({ ok: false, error: 'timeout' });
        request.destroy();
      },
      Math.max(0, msLeft),
    );
    request.on('error', (err: NodeJS.ErrnoException) => finish({ ok: false, error: describe(err) }));
    request.on('response', (res) => {
      const status = res.statusCode ?? 0;
      const settle = () => {
        if (status >= 200 && status < 300) finish({ ok: true, status });
        else if (status >= 300 && status < 400) finish({ ok: false, status, error: 'redirect not followed' });
        else finish({ ok: false, status, error: `HTTP ${status}` });
      };
      let read = 0;
      res.on('data', (chunk: Buffer) => {
        read += chunk.length;
        // Enough: the rest of a large answer is not read, and its connection is not reused.
        if (read > maxResponseBytes) {
          res.destroy();
          settle();
        }
      });
      res.on('end', settle);
      res.on('error', settle);
    });
    request.end(body);
  });
}
