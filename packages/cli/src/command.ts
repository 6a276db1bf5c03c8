// What every command of `smsgw` shares: the process around it, the option parsing, the client and the printing.
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { SmsGateway } from '@smsgw/client';
import { resolveCredentials, type Credentials } from './config';
import type { Writable } from './format';

/** The process around a command: its streams and environment (tests give their own). */
export interface Io {
  stdout: Writable;
  stderr: Writable;
  stdin: NodeJS.ReadableStream & { isTTY?: boolean; setRawMode?: (raw: boolean) => unknown };
  env: NodeJS.ProcessEnv;
  /** Calls `stop` on Ctrl-C (SIGINT) or SIGTERM; only commands that run until stopped (listen) ask for it. */
  onInterrupt?: (stop: () => void) => void;
}

/** Prints one line (of standard output or standard error). */
export type Print = (text: string) => void;

/** One command: its arguments after the command's name, the process, and the two ways to print; answers the exit status. */
export type Command = (args: string[], io: Io, out: Print, err: Print) => Promise<number>;

/** A mistake in the command line: exit status 2. */
export class UsageError extends Error {
  override name = 'UsageError';
}

export type Options = NonNullable<ParseArgsConfig['options']>;
export const COMMON: Options = {
  json: { type: 'boolean' },
  profile: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
};
export const SENDING: Options = { device: { type: 'string' }, 'idempotency-key': { type: 'string' } };

export function parse(args: string[], options: Options, positionals = 0) {
  const parsed = parseArgs({ args, options: { ...COMMON, ...options }, allowPositionals: positionals > 0, strict: true });
  if (parsed.positionals.length > positionals) throw new UsageError(`unexpected argument "${parsed.positionals[positionals]}"`);
  return parsed as { values: Record<string, string | boolean | undefined>; positionals: string[] };
}

export const str = (v: string | boolean | undefined): string | undefined => (typeof v === 'string' ? v : undefined);

export function int(v: string | boolean | undefined, name: string): number | undefined {
  if (v === undefined) return undefined;
  if (typeof v !== 'string' || !/^\d+$/.test(v)) throw new UsageError(`--${name} takes a whole number, not "${String(v)}"`);
  return Number(v);
}

export function need(v: string | boolean | undefined, name: string): string {
  if (typeof v !== 'string' || v === '') throw new UsageError(`--${name} is required`);
  return v;
}

export function client(io: Io, values: Record<string, string | boolean | undefined>): SmsGateway {
  const creds: Credentials = resolveCredentials(io.env, str(values.profile));
  return new SmsGateway({
    apiKey: creds.apiKey,
    clientId: creds.clientId,
    baseUrl: creds.baseUrl,
    ...(creds.caFile ? { caFile: creds.caFile } : {}),
    ...(creds.deviceId ? { deviceId: creds.deviceId } : {}),
    // A command line waits out a short rate limit rather than failing a long CSV half-way.
    maxRetries: 4,
  });
}

export function sendOptions(values: Record<string, string | boolean | undefined>) {
  return {
    ...(str(values.device) ? { deviceId: str(values.device) } : {}),
    ...(str(values['idempotency-key']) ? { idempotencyKey: str(values['idempotency-key']) } : {}),
  };
}

export function metadataOf(v: string | boolean | undefined): Record<string, unknown> | undefined {
  if (v === undefined) return undefined;
  try {
    const parsed: unknown = JSON.parse(String(v));
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) return parsed as Record<string, unknown>;
  } catch {
    // fall through to the usage error
  }
  throw new UsageError('--metadata takes a JSON object, such as \'{"order": "A-17"}\'');
}

export function printJson(out: Print, value: unknown): void {
  out(JSON.stringify(value, null, 2));
}

export function help(out: Print, text: string): number {
  out(`Usage: ${text}`);
  return 0;
}

export async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of stream) chunks.push(Buffer.isBuffer(c) ? c : Buffer.from(String(c)));
  return Buffer.concat(chunks).toString('utf8');
}
