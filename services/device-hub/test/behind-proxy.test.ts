import WebSocket from 'ws';
import { HubCluster } from './support/hub';

/** The hub as the Helm chart runs it by default: plain HTTP behind an Ingress that terminates TLS. */
describe('the phones endpoint behind a TLS-terminating proxy (TLS_MODE=proxy)', () => {
  let hub: HubCluster;
  let base: string;

  beforeAll(async () => {
    hub = await HubCluster.start(1, { TLS_MODE: 'proxy', TLS_CERT_FILE: '', TLS_KEY_FILE: '', PAIRING_RATE_LIMIT: '2' });
    base = `http://127.0.0.1:${new URL(hub.first.agentUrl).port}`;
  });

  afterAll(async () => {
    await hub?.stop();
  });

  const pair = async (headers: Record<string, string>) => {
    const res = await fetch(`${base}/v1/agent/pair`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify({ pairing_code: 'NOTACODE' }),
    });
    return { status: res.status, body: (await res.json()) as { success: boolean; error?: { code: string } } };
  };

  it('when the proxy did not receive a pairing over HTTPS, then it is refused with 403 HTTPS_REQUIRED; probes still answer', async () => {
    expect(await pair({})).toEqual({
      status: 403,
      body: { success: false, error: { code: 'HTTPS_REQUIRED', message: expect.stringMatching(/HTTPS/) } },
    });
    expect(await pair({ 'x-forwarded-proto': 'http', 'x-forwarded-for': '198.51.100.1' })).toMatchObject({ status: 403 });

    expect((await fetch(`${base}/healthz`)).status).toBe(200);
    expect((await fetch(`${base}/readyz`)).status).toBe(200);
  });

  it('when pairings are forwarded over HTTPS, then each phone address has its own limit, taken from the address the proxy appended', async () => {
    const from = (xff: string) => pair({ 'x-forwarded-proto': 'https', 'x-forwarded-for': xff });
    // Every request comes from this machine's one TCP address: only X-Forwarded-For tells phones apart.
    expect((await from('203.0.113.7')).status).toBe(401);
    expect((await from('203.0.113.7')).status).toBe(401);
    expect(await from('203.0.113.7')).toMatchObject({ status: 429, body: { error: { code: 'RATE_LIMIT_EXCEEDED' } } });

    // Another phone is not throttled by the first one's attempts.
    expect((await from('203.0.113.8')).status).toBe(401);
    // A phone that writes its own X-Forwarded-For cannot pass for another: the last entry is the proxy's.
    expect((await from('192.0.2.99, 203.0.113.7')).status).toBe(429);
    expect((await from('203.0.113.7, 203.0.113.9')).status).toBe(401);
  });

  it('when a load balancer hides phone addresses (no X-Forwarded-For), then no address limit applies: one phone cannot lock every other out', async () => {
    for (let i = 0; i < 4; i++) expect((await pair({ 'x-forwarded-proto': 'https' })).status).toBe(401);
  });

  it('when the connection does not come from a trusted proxy, then its X-Forwarded-* headers are not believed: it is refused as not HTTPS', async () => {
    const untrusting = await HubCluster.start(1, { TLS_MODE: 'proxy', TLS_CERT_FILE: '', TLS_KEY_FILE: '', TRUSTED_PROXIES: '192.0.2.1' });
    try {
      const res = await fetch(`http://127.0.0.1:${new URL(untrusting.first.agentUrl).port}/v1/agent/pair`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-forwarded-proto': 'https', 'x-forwarded-for': '203.0.113.7' },
        body: JSON.stringify({ pairing_code: 'NOTACODE' }),
      });
      expect(res.status).toBe(403);
      expect(await res.json()).toMatchObject({ success: false, error: { code: 'HTTPS_REQUIRED' } });
    } finally {
      await untrusting.stop();
    }
  });

  it('when a WebSocket upgrade did not come over HTTPS, then it is refused with 403; over HTTPS an unknown token is 401', async () => {
    const upgrade = (headers: Record<string, string>) =>
      new Promise<{ status: number; body: string }>((resolve, reject) => {
        const ws = new WebSocket(`${base.replace('http:', 'ws:')}/v1/agent`, 'smsgw.agent.v1', {
          headers: { authorization: 'Bearer dtk_unknown', ...headers },
        });
        ws.on('unexpected-response', (_req, res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
        });
        ws.on('open', () => reject(new Error('the upgrade was accepted')));
        ws.on('error', () => undefined);
      });

    const plain = await upgrade({});
    expect(plain.status).toBe(403);
    expect(JSON.parse(plain.body)).toMatchObject({ success: false, error: { code: 'HTTPS_REQUIRED' } });
    const forwarded = await upgrade({ 'x-forwarded-proto': 'https' });
    expect(forwarded.status).toBe(401);
    expect(JSON.parse(forwarded.body)).toMatchObject({ success: false, error: { code: 'INVALID_DEVICE_TOKEN' } });
  });
});
