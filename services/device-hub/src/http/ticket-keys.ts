import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import type https from 'node:https';
import { ConfigError, type Logger } from '@smsgw/platform';

/** Node's `ticketKeys`: 16 bytes of key name, 16 of HMAC key, 16 of AES key. */
export const TICKET_KEYS_BYTES = 48;

/**
 * The session-ticket keys of HUB_TLS_TICKET_KEYS_FILE: the base64 of 48 random bytes (what
 * `openssl rand -base64 48` prints; spaces and line ends are ignored), the current keys, or of 96:
 * the current keys, then the previous ones (what the chart's secrets Job writes when it rotates
 * them; two `openssl rand -base64 48` lines joined are the same). Undefined when there is no such
 * file (the chart mounts the key only if its Secret has it: an existing Secret made before the
 * ticket keys may not). A file that cannot be read, is not base64 or holds another length is a
 * ConfigError naming the file, never its content.
 */
export function readTicketKeys(file: string): Buffer | undefined {
  const problem = (text: string) => new ConfigError([`HUB_TLS_TICKET_KEYS_FILE=${JSON.stringify(file)}: ${text}`]);
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8').replace(/\s+/g, '');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    throw problem(`cannot be read (${code ?? (err as Error).message})`);
  }
  // Two base64 texts of 48 bytes each have no padding: joined, they are the base64 of 96 bytes.
  const keys = /^[A-Za-z0-9+/_-]+={0,2}$/.test(text) ? Buffer.from(text, 'base64') : undefined;
  if (keys?.length === TICKET_KEYS_BYTES || keys?.length === 2 * TICKET_KEYS_BYTES) return keys;
  throw problem(
    `the file must hold the base64 of ${TICKET_KEYS_BYTES} random bytes (openssl rand -base64 ${TICKET_KEYS_BYTES}), ` +
      `or of ${2 * TICKET_KEYS_BYTES} (the current keys, then the previous ones); ` +
      (keys ? `it holds ${keys.length} bytes` : 'it is not base64'),
  );
}

interface TicketKey {
  name: Buffer;
  hmac: Buffer;
  aes: Buffer;
}

const keyOf = (bytes: Buffer): TicketKey => ({
  name: bytes.subarray(0, 16),
  hmac: bytes.subarray(16, 32),
  aes: bytes.subarray(32, 48),
});

/** What OpenSSL's ticket key callback answers (SSL_CTX_set_tlsext_ticket_key_cb). */
const UNKNOWN = 0;
const ACCEPTED = 1;
const ACCEPTED_RENEW = 2;

/** Node's SecureContext with its ticket key callback (internal: see `TicketKeyRing.install`). */
interface CallbackContext {
  enableTicketKeyCallback?: () => void;
  onticketkeycallback?: (name: Buffer, iv: Buffer, encrypt: boolean) => (number | Buffer)[];
}

/**
 * The hub's session-ticket keys while it runs: tickets are issued with the current keys, and
 * those of the previous keys are still accepted (and renewed with the current ones), so that a
 * rotation costs no phone a full handshake: the secrets Job puts new keys first and keeps the
 * current ones second, every replica reads the file again within `HUB_TLS_TICKET_KEYS_RELOAD_MS`,
 * and a phone's ticket of before the rotation still resumes on any of them.
 */
export class TicketKeyRing {
  private current: TicketKey;
  private previous: TicketKey | undefined;
  private bytes: Buffer;
  private server: https.Server | undefined;
  private previousAccepted = false;

  constructor(keys: Buffer) {
    this.bytes = keys;
    this.current = keyOf(keys);
    this.previous = keys.length > TICKET_KEYS_BYTES ? keyOf(keys.subarray(TICKET_KEYS_BYTES)) : undefined;
  }

  /** The current keys, as Node's `ticketKeys` option takes them. */
  get currentKeys(): Buffer {
    return this.bytes.subarray(0, TICKET_KEYS_BYTES);
  }

  /**
   * Makes `server` issue tickets with the current keys and accept those of both. Node has no
   * option for a second key: its SecureContext's ticket key callback (internal, which Node's own
   * test-https-resume-after-renew drives) decides. A Node without it keeps the current keys only,
   * and says so: false.
   */
  install(server: https.Server, log: Logger): boolean {
    this.server = server;
    const context = (server as unknown as { _sharedCreds?: { context?: CallbackContext } })._sharedCreds?.context;
    if (typeof context?.enableTicketKeyCallback !== 'function') {
      log.warn(
        'this Node has no ticket key callback: tickets of the previous keys are not accepted (a rotation costs each phone one full handshake)',
      );
      return false;
    }
    context.enableTicketKeyCallback();
    context.onticketkeycallback = (name, _iv, encrypt) => {
      const { current, previous } = this;
      if (encrypt) return [ACCEPTED, current.hmac, current.aes, current.name, randomBytes(16)];
      if (name.equals(current.name)) return [ACCEPTED, current.hmac, current.aes];
      if (previous && name.equals(previous.name)) return [ACCEPTED_RENEW, previous.hmac, previous.aes];
      // Neither: the phone makes a full handshake and gets a ticket of the current keys.
      return [UNKNOWN, current.hmac, current.aes];
    };
    this.previousAccepted = true;
    return true;
  }

  /** Takes the keys read again from the file; true when they changed. */
  update(keys: Buffer): boolean {
    if (keys.equals(this.bytes)) return false;
    this.bytes = keys;
    this.current = keyOf(keys);
    this.previous = keys.length > TICKET_KEYS_BYTES ? keyOf(keys.subarray(TICKET_KEYS_BYTES)) : undefined;
    // Without the callback, the server's own keys are the current ones.
    if (this.server && !this.previousAccepted) this.server.setTicketKeys(this.currentKeys);
    return true;
  }
}
