// What Postgres, Redis and NATS each provide as a row of the infrastructure (`InfraService`), and the errors.
import type { PrivateInstance } from './private-instance';

/** Postgres, Redis or NATS could not be provided; the message says what to do about it. */
export class InfraError extends Error {
  override name = 'InfraError';

  constructor(
    readonly service: InfraName,
    message: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

export type InfraName = 'postgres' | 'redis' | 'nats';

export const PROBE_TIMEOUT_MS = 3_000;
export const READY_TIMEOUT_MS = 30_000;
export const STOP_TIMEOUT_MS = 10_000;
export const LOG_TAIL_LINES = 20;

/** The server answers but lacks something the platform needs (JetStream). */
export class UnusableError extends Error {
  override name = 'UnusableError';
}

export interface Binaries {
  /** The server binary. */
  main: string;
  /** Other binaries of the same installation, by name. */
  tools: Record<string, string>;
}

export interface StartContext {
  dir: string;
  logFile: string;
  port: number;
  binaries: Binaries;
  dataDir: string;
  /** Postgres: settings passed as `-c name=value` after the defaults (they win). */
  settings?: Record<string, string>;
  /** NATS: the port of its monitoring endpoint (`/varz`); none when absent. */
  monitorPort?: number;
}

export interface InfraService {
  name: InfraName;
  /** What to tell the user to install, and what apt-get installs when it can. */
  debianPackage: string;
  envVar: string;
  defaultUrl: string;
  findBinaries(): Binaries | undefined;
  probe(url: string): Promise<void>;
  start(context: StartContext): Promise<PrivateInstance>;
}

/** Duck-typed: errors from Node's own modules fail `instanceof Error` under jest's VM contexts. */
export function describe(err: unknown): string {
  if (typeof err !== 'object' || err === null) return String(err);
  const { message, code, name, errors } = err as { message?: unknown; code?: unknown; name?: unknown; errors?: unknown };
  // Node reports a refused connection to every address of a host as an AggregateError with no message.
  if (!message && Array.isArray(errors) && errors.length > 0) return describe(errors[0]);
  for (const part of [message, code, name]) if (typeof part === 'string' && part) return part;
  return Object.prototype.toString.call(err);
}

/** URLs go to logs; passwords must not. */
export function redact(url: string): string {
  try {
    const parsed = new URL(url);
    if (!parsed.password) return url;
    parsed.password = '***';
    return parsed.toString();
  } catch {
    return url;
  }
}
