import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { msToNextUtcDay } from '@smsgw/platform';
import { request } from './support/http';
import { callTool, httpClient } from './support/mcp';
import { TestSystem, type DemoClient } from './support/system';

/**
 * Keys with limits against the whole system: scopes, source address ranges and a daily quota,
 * counted across two gateway replicas, on a day the test moves with the gateways' quota clock.
 */
describe('keys with scopes, address ranges and a daily quota', () => {
  let system: TestSystem;
  let client: DemoClient;
  let clockDir: string;
  let clockFile: string;
  let secondGateway: string;

  beforeAll(async () => {
    clockDir = fs.mkdtempSync(path.join(os.tmpdir(), 'smsgw-clock-'));
    clockFile = path.join(clockDir, 'offset-ms');
    fs.writeFileSync(clockFile, '0');
    system = await TestSystem.start({ CLOCK_OFFSET_FILE: clockFile, TEST_MODE_SENT_DELAY_MS: '50', TEST_MODE_DELIVERY_DELAY_MS: '50' });
    client = await system.createClient();
    // Test keys: every device of the client counts as online, no phone is needed.
    await system.createDevice(client.client_id);
    secondGateway = await system.stack.addGateway();
  });

  afterAll(async () => {
    await system?.stop();
    fs.rmSync(clockDir, { recursive: true, force: true });
  });

  /** A request with this key, to the first gateway or to `base`. */
  const call = (key: string, pathname: string, body?: unknown, base = system.stack.gatewayUrl) =>
    request(`${base}${pathname}`, system.stack.certs.caPem, {
      headers: { 'X-API-Key': key, 'X-Client-ID': client.client_id },
      ...(body === undefined ? {} : { body }),
    });
  const send = (key: string, base?: string) => call(key, '/v1/sms/send', { to: '+33612345678', message: 'Bonjour' }, base);
  const makeKey = async (limits: { scopes?: string[]; ipRanges?: string[]; dailyQuota?: number }) =>
    (await system.admin.createKey(client.client_id, { test: true, label: 'e2e', ...limits })).api_key;

  it('when a send-only key asks for the history, then it is refused 403 SCOPE_NOT_ALLOWED naming read; it sends and follows its message', async () => {
    const key = await makeKey({ scopes: ['send'] });

    const history = await call(key, '/v1/sms/history');
    const sent = await send(key);
    const status = await call(key, `/v1/sms/status/${String(sent.body.message_id)}`);

    expect(history.status).toBe(403);
    expect(history.body.error).toEqual({
      code: 'SCOPE_NOT_ALLOWED',
      message: "Cette clé API n'a pas le droit d'utiliser cette fonction : ses autorisations (scopes) ne la couvrent pas.",
      details: [
        { field: 'X-API-Key', code: 'SCOPE_NOT_ALLOWED', message: 'Autorisations qui ouvrent cette fonction : read.', scopes: ['read'] },
      ],
    });
    expect(sent.status).toBe(200);
    expect(status.status).toBe(200);
    // The client's unlimited key still reads the history.
    expect((await system.api('/v1/sms/history', client, {}, 'test')).status).toBe(200);
  });

  it("when a send-only key's agent asks the MCP tools for the history, then the tool fails SCOPE_NOT_ALLOWED; its send tool works and counts against the quota", async () => {
    const key = await makeKey({ scopes: ['send'], dailyQuota: 1 });
    const mcp = await httpClient(system.stack.gatewayUrl, system.stack.certs.caPem, { 'X-API-Key': key, 'X-Client-ID': client.client_id });
    try {
      const history = await callTool(mcp, 'search_history', {});
      const sent = await callTool(mcp, 'send_sms', { to: '+33612345678', message: 'Bonjour' });
      const over = await callTool(mcp, 'send_sms', { to: '+33612345678', message: 'Encore' });

      expect(history).toMatchObject({ isError: true, body: { success: false, error: { code: 'SCOPE_NOT_ALLOWED' } } });
      expect(sent).toMatchObject({ isError: false, body: { success: true } });
      expect(over).toMatchObject({ isError: true, body: { success: false, error: { code: 'QUOTA_EXCEEDED' } } });
    } finally {
      await mcp.close();
    }
  });

  it('when a key limited to ranges that exclude 127.0.0.1 is used from it, then 403 IP_NOT_ALLOWED; a range that includes it works (made with the operator command)', async () => {
    const elsewhere = String(
      (await system.cli('create-key', '--client', client.client_id, '--test', '--ip-ranges', '10.0.0.0/8,2001:db8::/32')).api_key,
    );
    const here = String((await system.cli('create-key', '--client', client.client_id, '--test', '--ip-ranges', '127.0.0.0/8')).api_key);

    const refused = await call(elsewhere, '/v1/sms/history');
    const refusedSend = await send(elsewhere);
    const allowed = await call(here, '/v1/sms/history');

    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatchObject({
      code: 'IP_NOT_ALLOWED',
      message: "Cette clé API n'est pas autorisée depuis cette adresse IP.",
    });
    expect(refusedSend.body.error).toMatchObject({ code: 'IP_NOT_ALLOWED' });
    expect(allowed.status).toBe(200);
    expect((await send(here)).status).toBe(200);
  });

  it("when a key's daily quota is used up across two gateways, then the next send is refused 429 QUOTA_EXCEEDED until the next UTC day", async () => {
    const key = await makeKey({ dailyQuota: 4 });

    expect((await send(key)).status).toBe(200);
    const bulk = await call(
      key,
      '/v1/sms/send-bulk',
      { recipients: ['+33612345671', '+33612345672', '+33612345673'], message: 'Bonjour' },
      secondGateway,
    );
    expect(bulk.status).toBe(200);
    const refused = await send(key);
    const refusedElsewhere = await send(key, secondGateway);

    expect(refused.status).toBe(429);
    expect(refused.body.error).toEqual({
      code: 'QUOTA_EXCEEDED',
      message: 'Quota journalier de cette clé API atteint : de nouveaux envois seront possibles demain (minuit UTC).',
    });
    const untilMidnight = Math.ceil(msToNextUtcDay(Date.now()) / 1000);
    expect(Math.abs(Number(refused.headers['retry-after']) - untilMidnight)).toBeLessThanOrEqual(5);
    expect(refusedElsewhere.body.error).toMatchObject({ code: 'QUOTA_EXCEEDED' });
    // Reading is not sending: the key still reads its history.
    expect((await call(key, '/v1/sms/history')).status).toBe(200);

    // The next day by the gateways' clock: the quota starts again, on both replicas.
    fs.writeFileSync(clockFile, String(msToNextUtcDay(Date.now()) + 60_000));
    expect((await send(key)).status).toBe(200);
    expect((await send(key, secondGateway)).status).toBe(200);
    const bulkTooBig = await call(key, '/v1/sms/send-bulk', { recipients: ['+33612345671', '+33612345672', '+33612345673'], message: 'x' });
    expect(bulkTooBig.body.error).toMatchObject({ code: 'QUOTA_EXCEEDED' });
    expect((await send(key)).status).toBe(200);
  });
});
