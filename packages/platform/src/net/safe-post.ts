import { lookup } from 'node:dns/promises';
import https from 'node:https';
import tls from 'node:tls';
import { classifyAddress, parseWebhookUrl, type WebhookTarget } from './address-policy';

/** Resolves a host name to its addresses (all of them). */
export type Resolver = (hostname: string) => Promise<string[]>;

export const systemResolver: Resolver = async (hostname) => (await lookup(hostname, { all: true, verbatim: true })).map((a) => a.address);

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
      if (!verdict.public) return { ok: false, reason: `blocked address ${address} (${verdict.reason})` };
    }
  }
  return { ok: true, address: addresses[0]! };
}

/** Checks a webhook URL as it would be at delivery time: parse, resolve, classify. Undefined when allowed. */
export async function checkWebhookUrl(url: string, options: { allowPrivate: boolean; resolver?: Resolver }): Promise<string | undefined> {
  const parsed = parseWebhookUrl(url, options);
  if (!parsed.ok) return parsed.reason;
  const resolved = await resolvePublic(parsed.target, options);
  return resolved.ok ? undefined : resolved.reason;
}

export interface SafePostRequest {
  url: string;
  body: string;
  headers: Record<string, string>;
  timeoutMs: number;
  maxResponseBytes: number;
  allowPrivate: boolean;
  resolver?: Resolver;
  /** Keep-alive connections; connections are pooled by the checked address, never by name. */
  agent?: https.Agent;
  /** The trusted CAs, when not only the system's (see `trustingAlso`). */
  secureContext?: tls.SecureContext;
}

export interface SafePostResult {
  /** A 2xx answer. */
  ok: boolean;
  status?: number;
  latencyMs: number;
  /** A short English reason when not ok: `timeout`, `connection refused`, `redirect not followed`, `blocked address ...`. */
  error?: string;
}

/**
 * A TLS context that trusts the system's CAs and `extraCaPem` too (a local
 * CA in development). Built once: per-request `ca` lists are costly.
 */
export function trustingAlso(extraCaPem: string): tls.SecureContext {
  return tls.createSecureContext({ ca: [...tls.rootCertificates, extraCaPem] });
}

function describe(err: NodeJS.ErrnoException): string {
  switch (err.code) {
    case 'ECONNREFUSED':
      return 'connection refused';
    case 'ECONNRESET':
      return 'connection reset';
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return 'host unreachable';
    default:
      if (err.code?.startsWith('ERR_TLS') || err.code?.includes('CERT') || err.code === 'DEPTH_ZERO_SELF_SIGNED_CERT') return `TLS: ${err.code}`;
      return err.code ? `network error ${err.code}` : err.message;
  }
}

/**
 * One HTTPS POST to a receiver that the platform does not trust: the host is
 * resolved and every address checked (unless `allowPrivate`), the connection
 * goes to the very address that was checked (no second lookup, so no DNS
 * rebinding between check and connect), redirects are not followed, at most
 * `maxResponseBytes` of the answer are read, and the whole exchange is
 * bounded by `timeoutMs`. Network outcomes are results, never exceptions.
 */
export async function safePost(req: SafePostRequest): Promise<SafePostResult> {
  const started = performance.now();
  const done = (r: Omit<SafePostResult, 'latencyMs'>): SafePostResult => ({ ...r, latencyMs: performance.now() - started });
  const parsed = parseWebhookUrl(req.url, { allowPrivate: req.allowPrivate });
  if (!parsed.ok) return done({ ok: false, error: parsed.reason });
  const { target } = parsed;
  const resolved = await resolvePublic(target, req);
  if (!resolved.ok) return done({ ok: false, error: resolved.reason });
  const body = Buffer.from(req.body, 'utf8');

  return new Promise<SafePostResult>((resolve) => {
    let settled = false;
    const finish = (r: Omit<SafePostResult, 'latencyMs'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(done(r));
    };
    const request = https.request({
      host: resolved.address,
      port: target.url.port || 443,
      path: `${target.url.pathname}${target.url.search}`,
      method: 'POST',
      // SNI and the certificate check use the name; an IP host is checked against the certificate's IP addresses.
      servername: target.literalAddress ? undefined : target.hostname,
      headers: { ...req.headers, Host: target.url.host, 'Content-Length': String(body.length) },
      agent: req.agent ?? false,
      ...(req.secureContext ? { secureContext: req.secureContext } : {}),
    });
    const timer = setTimeout(() => {
      finish({ ok: false, error: 'timeout' });
      request.destroy();
    }, req.timeoutMs);
    request.on('error', (err: NodeJS.ErrnoException) => finish({ ok: false, error: describe(err) }));
    request.on('response', (res) => {
      const status = res.statusCode ?? 0;
      let read = 0;
      res.on('data', (chunk: Buffer) => {
        read += chunk.length;
        // Enough: the rest of a large answer is not read.
        if (read > req.maxResponseBytes) {
          res.destroy();
          settle();
        }
      });
      const settle = () => {
        if (status >= 200 && status < 300) finish({ ok: true, status });
        else if (status >= 300 && status < 400) finish({ ok: false, status, error: 'redirect not followed' });
        else finish({ ok: false, status, error: `HTTP ${status}` });
      };
      res.on('end', settle);
      res.on('error', () => settle());
    });
    request.end(body);
  });
}
