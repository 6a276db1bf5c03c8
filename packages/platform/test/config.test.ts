import { commonConfig, ConfigError, DEFAULT_TRUSTED_PROXIES, loadConfig } from '../src';

function problemsOf(fn: () => unknown): string[] {
  try {
    fn();
  } catch (err) {
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
  throw new Error('expected a ConfigError');
}

describe('loadConfig', () => {
  it('when every variable is valid, then the typed values come back', () => {
    const config = loadConfig(
      (env) => ({
        name: env.str('NAME'),
        port: env.int('PORT', undefined, { min: 0, max: 65535 }),
        debug: env.bool('DEBUG'),
        quiet: env.bool('QUIET'),
        url: env.url('DATABASE_URL', undefined, ['postgres']),
        level: env.oneOf('LEVEL', ['info', 'debug'] as const),
        extra: env.optional('EXTRA'),
      }),
      { NAME: 'account', PORT: '50051', DEBUG: 'yes', QUIET: 'off', DATABASE_URL: 'postgres://u@h:5432/db', LEVEL: 'debug' },
    );

    expect(config).toEqual({
      name: 'account',
      port: 50051,
      debug: true,
      quiet: false,
      url: 'postgres://u@h:5432/db',
      level: 'debug',
      extra: undefined,
    });
  });

  it('when a variable is unset or empty, then its fallback is used', () => {
    const config = loadConfig(
      (env) => ({
        host: env.str('HOST', '0.0.0.0'),
        port: env.int('PORT', 8080),
        tls: env.bool('TLS', false),
        extra: env.optional('EXTRA'),
      }),
      { PORT: '', EXTRA: '' },
    );

    expect(config).toEqual({ host: '0.0.0.0', port: 8080, tls: false, extra: undefined });
  });

  it('when several variables are wrong or missing, then one error lists every problem, each naming its variable', () => {
    const problems = problemsOf(() =>
      loadConfig(
        (env) => ({
          name: env.str('NAME'),
          port: env.int('PORT', 1, { max: 65535 }),
          pool: env.int('POOL', 10, { min: 1 }),
          count: env.int('COUNT'),
          debug: env.bool('DEBUG'),
          url: env.url('DATABASE_URL'),
          redis: env.url('REDIS_URL', undefined, ['redis', 'rediss']),
          level: env.oneOf('LEVEL', ['info', 'debug'] as const),
        }),
        { PORT: '70000', POOL: '0', COUNT: '2.5', DEBUG: 'maybe', DATABASE_URL: 'not a url', REDIS_URL: 'http://localhost', LEVEL: 'loud' },
      ),
    );

    expect(problems).toHaveLength(8);
    expect(problems).toEqual([
      expect.stringMatching(/^NAME is required/),
      expect.stringMatching(/^PORT="70000": must be at most 65535/),
      expect.stringMatching(/^POOL="0": must be at least 1/),
      expect.stringMatching(/^COUNT="2.5": not an integer/),
      expect.stringMatching(/^DEBUG="maybe": must be true or false/),
      expect.stringMatching(/^DATABASE_URL="not a url": not a valid URL/),
      expect.stringMatching(/^REDIS_URL="http:\/\/localhost": scheme must be one of redis, rediss/),
      expect.stringMatching(/^LEVEL="loud": must be one of info, debug/),
    ]);
  });

  it('when the configuration is invalid, then the error message names every variable at once', () => {
    expect(() => loadConfig((env) => ({ a: env.str('FIRST_VAR'), b: env.int('SECOND_VAR') }), {})).toThrow(
      /FIRST_VAR is required but not set[\s\S]*SECOND_VAR is required but not set/,
    );
  });

  it('when the configuration is loaded, then it is frozen all the way down', () => {
    const config = loadConfig((env) => ({ grpc: commonConfig.grpc(env, 50051), database: commonConfig.database(env, 'account') }), {
      DATABASE_URL: 'postgresql://postgres@127.0.0.1:5432/postgres',
    });

    expect(config.grpc).toEqual({ host: '0.0.0.0', port: 50051, healthPort: 50151 });
    expect(config.database).toEqual({ url: 'postgresql://postgres@127.0.0.1:5432/postgres', schema: 'account', poolMax: 10 });
    expect(Object.isFrozen(config)).toBe(true);
    expect(Object.isFrozen(config.database)).toBe(true);
    expect(() => {
      (config.database as { schema: string }).schema = 'other';
    }).toThrow(TypeError);
    expect(config.database.schema).toBe('account');
  });

  it('when a key is given as hex or base64, then it is read as bytes; short, malformed or missing, then refused without quoting it', () => {
    const hex = 'ab'.repeat(32);
    const b64 = Buffer.alloc(32, 7).toString('base64');
    const config = loadConfig((env) => ({ a: env.key('KEY_A'), b: env.key('KEY_B') }), { KEY_A: hex, KEY_B: b64 });
    expect(config.a).toEqual(Buffer.from(hex, 'hex'));
    expect(config.b).toEqual(Buffer.alloc(32, 7));

    let problems: string[] = [];
    try {
      loadConfig((env) => ({ a: env.key('SHORT_KEY'), b: env.key('BAD_KEY'), c: env.key('NO_KEY') }), {
        SHORT_KEY: 'abcd',
        BAD_KEY: 'not a key!',
      });
    } catch (err) {
      problems = (err as ConfigError).problems;
    }
    expect(problems).toEqual([
      expect.stringMatching(/^SHORT_KEY is malformed: a key of at least 32 random bytes/),
      expect.stringMatching(/^BAD_KEY is malformed/),
      expect.stringMatching(/^NO_KEY is required but not set/),
    ]);
    expect(problems.join('\n')).not.toMatch(/abcd|not a key/);
  });
});

describe('commonConfig.tls', () => {
  const tls = (env: Record<string, string>) => loadConfig((e) => ({ tls: commonConfig.tls(e) }), env).tls;

  it('when TLS_MODE is native (the default) without certificate files, then start-up is refused naming both', () => {
    expect(() => tls({})).toThrow(/TLS_CERT_FILE is required[\s\S]*TLS_KEY_FILE is required/);
    expect(tls({ TLS_CERT_FILE: '/c.pem', TLS_KEY_FILE: '/k.pem' })).toEqual({ mode: 'native', certFile: '/c.pem', keyFile: '/k.pem' });
  });

  it('when TLS_MODE is proxy, then no certificate file is needed', () => {
    expect(tls({ TLS_MODE: 'proxy' })).toEqual({ mode: 'proxy', trustedProxies: DEFAULT_TRUSTED_PROXIES });
    expect(tls({ TLS_MODE: 'proxy', TRUSTED_PROXIES: '10.1.0.0/16' })).toEqual({ mode: 'proxy', trustedProxies: ['10.1.0.0/16'] });
    expect(() => tls({ TLS_MODE: 'passthrough' })).toThrow(/TLS_MODE.*must be one of native, proxy/);
  });
});
