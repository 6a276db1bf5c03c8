import os from 'node:os';
import fs from 'node:fs';
import path from 'node:path';
import { startPrivateServer, type PrivateServer, type ServiceName } from '@smsgw/stack';
import { eventually, request, type ApiResponse } from './support/http';
import { TestSystem, type DemoClient } from './support/system';

interface Outcome {
  status: number;
  code?: string;
  retryAfter?: string;
  ms: number;
  startedAt: number;
  endedAt: number;
}

/**
 * Redis and NATS of this test's own (never the machine's shared ones), so
 * that it can stop them under traffic and start them again.
 */
describe('dependency outages under traffic', () => {
  let system: TestSystem;
  let client: DemoClient;
  let redis: PrivateServer;
  let nats: PrivateServer;
  let dir: string;

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'smsgw-outages-'));
    [redis, nats] = await Promise.all([startPrivateServer('redis', { dataDir: dir }), startPrivateServer('nats', { dataDir: dir })]);
    system = await TestSystem.start({ LOG_LEVEL: 'info', RATE_LIMIT_PER_MINUTE: '100000' }, { redisUrl: redis.url, natsUrl: nats.url });
    client = await system.createClient();
    await system.createDevice(client.client_id, 'test-mode phone');
  });

  afterAll(async () => {
    // The stack removes its data from both servers: they must be up.
    await Promise.all([redis?.start(), nats?.start()]);
    await system?.stop();
    await Promise.all([redis?.stop(), nats?.stop()]);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const pids = () => (['account', 'message', 'device-hub', 'gateway'] as ServiceName[]).map((name) => system.stack.services[name].pid);
  const gatewayReady = () => request(`${system.stack.gatewayUrl}/readyz`, system.stack.certs.caPem);
  const hubReady = () => request(`${system.stack.hubUrl}/readyz`, system.stack.certs.caPem);
  const downIn = (res: ApiResponse) =>
    ((res.body.error as { details?: { field: string }[] } | undefined)?.details ?? []).map((d) => d.field).sort();

  /** Four callers sending, reading history and testing their key, until stopped. */
  function traffic() {
    const outcomes: Outcome[] = [];
    let running = true;
    const calls = [
      () => system.api('/v1/sms/send', client, { body: { to: '+33612345678', message: 'pendant la panne' } }, 'test'),
      () => system.api('/v1/sms/history?limit=5', client, {}, 'test'),
      () => system.api('/v1/auth/test', client, {}, 'test'),
    ];
    const worker = async (n: number) => {
      for (let i = n; running; i++) {
        const startedAt = Date.now();
        const res = await calls[i % calls.length]!();
        const endedAt = Date.now();
        const error = res.body.error as { code?: string } | undefined;
        outcomes.push({
          status: res.status,
          code: error?.code,
          retryAfter: res.headers['retry-after'],
          ms: endedAt - startedAt,
          startedAt,
          endedAt,
        });
        await new Promise((r) => setTimeout(r, 20));
      }
    };
    const done = Promise.all([0, 1, 2, 3].map(worker));
    return {
      outcomes,
      async stop() {
        running = false;
        await done;
        return outcomes;
      },
    };
  }

  it('when Redis stops under traffic, then requests get 503 SERVICE_UNAVAILABLE with Retry-After within the deadline, readiness says so, and traffic succeeds again once Redis is back', async () => {
    expect((await gatewayReady()).status).toBe(200);
    expect((await hubReady()).status).toBe(200);
    const before = pids();
    const load = traffic();
    await new Promise((r) => setTimeout(r, 500));

    await redis.stop();
    const gatewayDown = await eventually(
      async () => {
        const res = await gatewayReady();
        return res.status === 503 ? res : undefined;
      },
      10_000,
      'the gateway to report Redis down',
    );
    expect(gatewayDown.body).toMatchObject({ success: false, error: { code: 'SERVICE_UNAVAILABLE' } });
    // The otp service counts OTPs per number in Redis: it may report itself not serving as well.
    expect(downIn(gatewayDown).filter((field) => field !== 'otp')).toEqual(['redis']);
    expect(Number(gatewayDown.headers['retry-after'])).toBeGreaterThan(0);
    const hubDown = await eventually(
      async () => {
        const res = await hubReady();
        return res.status === 503 ? res : undefined;
      },
      10_000,
      'the hub to report Redis down',
    );
    expect(downIn(hubDown)).toEqual(['redis']);
    const outageFrom = Date.now();
    await new Promise((r) => setTimeout(r, 3000));
    const outageTo = Date.now();

    await redis.start();
    await eventually(async () => ((await gatewayReady()).status === 200 ? true : undefined), 20_000, 'the gateway to be ready again');
    await eventually(async () => ((await hubReady()).status === 200 ? true : undefined), 20_000, 'the hub to be ready again');
    await new Promise((r) => setTimeout(r, 500));
    const outcomes = await load.stop();

    expect(outcomes.filter((o) => o.status >= 500 && o.status !== 503)).toEqual([]);
    const during = outcomes.filter((o) => o.startedAt >= outageFrom && o.endedAt <= outageTo);
    expect(during.length).toBeGreaterThan(10);
    for (const o of during)
      expect({ status: o.status, code: o.code, retryAfter: Number(o.retryAfter) > 0 }).toEqual({
        status: 503,
        code: 'SERVICE_UNAVAILABLE',
        retryAfter: true,
      });
    // Nothing waits for a Redis that is not there: well under the 5 s deadline of a call.
    expect(Math.max(...during.map((o) => o.ms))).toBeLessThan(2500);
    const after = outcomes.filter((o) => o.startedAt > outageTo + 500);
    expect(after.some((o) => o.status === 200)).toBe(true);
    expect((await system.api('/v1/sms/history', client, {}, 'test')).status).toBe(200);
    // Recovered by themselves: no service was restarted.
    expect(pids()).toEqual(before);
  });

  it('when NATS stops under traffic, then no request fails with 500 or hangs, readiness reports it, and messages flow again once NATS is back', async () => {
    const before = pids();
    const load = traffic();
    await new Promise((r) => setTimeout(r, 500));

    await nats.stop();
    const hubDown = await eventually(
      async () => {
        const res = await hubReady();
        return res.status === 503 ? res : undefined;
      },
      10_000,
      'the hub to report NATS down',
    );
    expect(downIn(hubDown)).toEqual(['nats']);
    // The message service and the hub answer NOT_SERVING to their health checks: the gateway is not
    // ready. Each notices the drop on its own connection, so one may be reported a moment before the other.
    const gatewayDown = await eventually(
      async () => {
        const res = await gatewayReady();
        return res.status === 503 && downIn(res).length === 2 ? res : undefined;
      },
      10_000,
      'the gateway to report both its upstreams not serving',
    );
    expect(downIn(gatewayDown)).toEqual(['device-hub', 'message']);
    const outageFrom = Date.now();
    await new Promise((r) => setTimeout(r, 3000));
    const outageTo = Date.now();

    await nats.start();
    await eventually(async () => ((await hubReady()).status === 200 ? true : undefined), 30_000, 'the hub to be ready again');
    await eventually(async () => ((await gatewayReady()).status === 200 ? true : undefined), 30_000, 'the gateway to be ready again');
    const outcomes = await load.stop();

    // Sends are stored and reads served meanwhile (the message service wakes devices once NATS is back);
    // what cannot be answered is 503 with Retry-After, never 500, never past the deadline.
    const during = outcomes.filter((o) => o.startedAt >= outageFrom && o.endedAt <= outageTo);
    expect(during.length).toBeGreaterThan(10);
    for (const o of outcomes) {
      if (o.status === 200) continue;
      expect({ status: o.status, code: o.code, retryAfter: Number(o.retryAfter) > 0 }).toEqual({
        status: 503,
        code: 'SERVICE_UNAVAILABLE',
        retryAfter: true,
      });
    }
    expect(Math.max(...outcomes.map((o) => o.ms))).toBeLessThan(6000);

    const sent = await system.api('/v1/sms/send', client, { body: { to: '+33612345678', message: 'après la panne' } }, 'test');
    expect(sent.status).toBe(200);
    await system.waitForStatus(client, String(sent.body.message_id), 'delivered', 30_000, 'test');
    expect(pids()).toEqual(before);
  });
});
