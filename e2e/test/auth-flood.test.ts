import fs from 'node:fs';
import https from 'node:https';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { TestSystem, type DemoClient } from './support/system';

const FAILURE_LIMIT = 20;

describe('a flood of bad keys from one address', () => {
  let system: TestSystem;
  let client: DemoClient;

  beforeAll(async () => {
    // LOG_LEVEL debug: the account service logs one line per gRPC call it answers.
    system = await TestSystem.start({ LOG_LEVEL: 'debug', AUTH_FAILURE_LIMIT: String(FAILURE_LIMIT), AUTH_FAILURE_WINDOW_MS: '60000' });
    client = await system.createClient();
    await system.createDevice(client.client_id);
  });

  afterAll(async () => {
    await system?.stop();
  });

  /** VerifyApiKey calls the account service has answered so far, from its log. */
  function verifyCalls(): number {
    const log = fs.readFileSync(path.join(system.stack.logDir, 'account.log'), 'utf8');
    return log.split('\n').filter((line) => line.includes('"method":"VerifyApiKey"')).length;
  }

  /** GET /v1/sms/history from a given loopback address (every 127.x.y.z reaches the gateway on 127.0.0.1). */
  function history(from: string, apiKey: string): Promise<{ status: number; body: { error?: { code?: string } }; retryAfter?: string }> {
    return new Promise((resolve, reject) => {
      const req = https.get(
        `${system.stack.gatewayUrl}/v1/sms/history?limit=1`,
        {
          ca: system.stack.certs.caPem,
          localAddress: from,
          agent: false,
          headers: { 'X-API-Key': apiKey, 'X-Client-ID': client.client_id },
        },
        (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (c: string) => (text += c));
          res.on('end', () =>
            resolve({
              status: res.statusCode ?? 0,
              body: JSON.parse(text) as { error?: { code?: string } },
              retryAfter: res.headers['retry-after'],
            }),
          );
        },
      );
      req.on('error', reject);
    });
  }

  const randomKey = () =>
    `sgw_live_${randomBytes(30)
      .toString('base64')
      .replace(/[^A-Za-z0-9]/g, '')
      .padEnd(40, 'x')
      .slice(0, 40)}`;

  it('when one address tries hundreds of random keys, then it gets 429 past the limit, the account service sees a bounded number of checks, and a good key from another address is unaffected', async () => {
    const callsBefore = verifyCalls();
    const answers: { status: number; code?: string; retryAfter?: string }[] = [];
    const flood = async () => {
      for (let i = 0; i < 50; i++) {
        const res = await history('127.0.0.2', randomKey());
        answers.push({ status: res.status, code: res.body.error?.code, retryAfter: res.retryAfter });
      }
    };
    await Promise.all([flood(), flood(), flood(), flood()]);

    const refused = answers.filter((a) => a.status === 401);
    const limited = answers.filter((a) => a.status === 429);
    expect(refused.length + limited.length).toBe(200);
    expect(refused.length).toBeGreaterThanOrEqual(FAILURE_LIMIT);
    // A few checks may be under way when the limit is reached: at most one per concurrent caller.
    expect(refused.length).toBeLessThanOrEqual(FAILURE_LIMIT + 4);
    for (const a of limited) expect(a.code).toBe('RATE_LIMIT_EXCEEDED');
    expect(Number(limited[0]!.retryAfter)).toBeGreaterThan(0);
    expect(Number(limited[0]!.retryAfter)).toBeLessThanOrEqual(60);

    // Another address with a good key: served as usual.
    const good = await history('127.0.0.3', client.live_api_key);
    expect(good.status).toBe(200);

    // The account service answered one check per refused key (and one for the good key), not one per request.
    await new Promise((r) => setTimeout(r, 300));
    const calls = verifyCalls() - callsBefore;
    expect(calls).toBeGreaterThanOrEqual(refused.length);
    expect(calls).toBeLessThanOrEqual(refused.length + 1);
  });

  it('when the same wrong key is repeated, then it is refused from memory for a moment without asking the account service again', async () => {
    const key = randomKey();
    const callsBefore = verifyCalls();
    for (let i = 0; i < 10; i++) expect((await history('127.0.0.4', key)).status).toBe(401);
    await new Promise((r) => setTimeout(r, 300));
    expect(verifyCalls() - callsBefore).toBe(1);
  });
});
