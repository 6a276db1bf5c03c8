/** Raised at start-up when the environment does not describe a usable configuration. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n  - ${problems.join('\n  - ')}`);
  }
}

export interface EnvReader {
  str(name: string, fallback?: string): string;
  optional(name: string): string | undefined;
  int(name: string, fallback?: number, range?: { min?: number; max?: number }): number;
  bool(name: string, fallback?: boolean): boolean;
  url(name: string, fallback?: string, protocols?: string[]): string;
  oneOf<T extends string>(name: string, values: readonly T[], fallback?: T): T;
  /** A secret key of at least `minBytes` bytes, given as hex or base64; required, no default. */
  key(name: string, minBytes?: number): Buffer;
  /** A value read by `parse`, whose thrown error's message is the problem reported. */
  parsed<V>(name: string, fallback: string, parse: (text: string) => V): V;
}

/**
 * Reads the environment once into a typed, frozen object. Every problem is
 * collected and reported together, each naming its variable.
 */
export function loadConfig<T extends object>(build: (env: EnvReader) => T, source: NodeJS.ProcessEnv = process.env): Readonly<T> {
  const problems: string[] = [];
  const raw = (name: string): string | undefined => {
    const value = source[name];
    return value === undefined || value === '' ? undefined : value;
  };
  const required = <V>(name: string, fallback: V | undefined, parse: (text: string) => V | string): V => {
    const text = raw(name);
    if (text === undefined) {
      if (fallback !== undefined) return fallback;
      problems.push(`${name} is required but not set`);
      return undefined as V;
    }
    const parsed = parse(text);
    if (typeof parsed === 'string' && parsed.startsWith('!')) {
      problems.push(`${name}=${JSON.stringify(text)}: ${parsed.slice(1)}`);
      return undefined as V;
    }
    return parsed as V;
  };
  const env: EnvReader = {
    str: (name, fallback) => required(name, fallback, (t) => t),
    optional: (name) => raw(name),
    int: (name, fallback, range = {}) =>
      required(name, fallback, (t) => {
        if (!/^[+-]?\d+$/.test(t.trim())) return '!not an integer';
        const n = Number(t);
        if (range.min !== undefined && n < range.min) return `!must be at least ${range.min}`;
        if (range.max !== undefined && n > range.max) return `!must be at most ${range.max}`;
        return n;
      }),
    bool: (name, fallback) =>
      required(name, fallback, (t) => {
        if (/^(1|true|yes|on)$/i.test(t)) return true;
        if (/^(0|false|no|off)$/i.test(t)) return false;
        return '!must be true or false';
      }),
    url: (name, fallback, protocols) =>
      required(name, fallback, (t) => {
        let url: URL;
        try {
          url = new URL(t);
        } catch {
          return '!not a valid URL';
        }
        if (protocols && !protocols.includes(url.protocol.replace(/:$/, ''))) {
          return `!scheme must be one of ${protocols.join(', ')}`;
        }
        return t;
      }),
    oneOf: (name, values, fallback) =>
      required(name, fallback, (t) => ((values as readonly string[]).includes(t) ? t : `!must be one of ${values.join(', ')}`)),
    parsed: (name, fallback, parse) =>
      required(name, { value: parse(fallback) }, (t) => {
        try {
          return { value: parse(t) };
        } catch (err) {
          return `!${(err as Error).message}`;
        }
      })?.value,
    key: (name, minBytes = 32) => {
      const text = raw(name)?.trim();
      const bytes = !text
        ? undefined
        : /^([0-9a-f]{2})+$/i.test(text)
          ? Buffer.from(text, 'hex')
          : /^[A-Za-z0-9+/_-]+={0,2}$/.test(text)
            ? Buffer.from(text, 'base64')
            : undefined;
      if (bytes && bytes.length >= minBytes) return bytes;
      // Unlike the other settings, the problem never quotes the value: it is a secret.
      problems.push(
        `${name} ${text ? 'is malformed' : 'is required but not set'}: a key of at least ${minBytes} random bytes, as hex or base64, is expected`,
      );
      return Buffer.alloc(0);
    },
  };
  const config = build(env);
  if (problems.length > 0) throw new ConfigError(problems);
  return deepFreeze(config);
}

function deepFreeze<T>(value: T): T {
  // A key (Buffer) cannot be frozen: typed arrays with elements refuse it.
  if (value && typeof value === 'object' && !ArrayBuffer.isView(value)) {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}
