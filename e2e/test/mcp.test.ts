import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { TOOL_NAMES } from '@smsgw/mcp';
import { thrownBy } from '@smsgw/testing';
import { eventually } from './support/http';
import { callTool, httpClient, stdioClient } from './support/mcp';
import type { AgentProcess } from './support/agent';
import { TestSystem, type DemoClient, type DemoDevice } from './support/system';

// Issue 40, the MCP half: an AI agent's MCP client reaches the API's features over stdio (the
// smsgw-mcp process, calling the REST API with its key) and over streamable HTTP (the gateway's
// /v1/mcp, behind the API's authentication), with the API's rules and error codes.

describe('MCP server', () => {
  let system: TestSystem;

  beforeAll(async () => {
    system = await TestSystem.shared();
  });

  afterAll(async () => {
    await system?.stop();
  });

  type Mode = 'live' | 'test';
  const keyOf = (client: DemoClient, mode: Mode) => (mode === 'live' ? client.live_api_key : client.test_api_key);

  const transports: [string, (client: DemoClient, mode: Mode, key?: string) => Promise<Client>][] = [
    [
      'streamable HTTP (/v1/mcp)',
      (client, mode, key) =>
        httpClient(system.stack.gatewayUrl, system.stack.certs.caPem, {
          'X-API-Key': key ?? keyOf(client, mode),
          'X-Client-ID': client.client_id,
        }),
    ],
    [
      'stdio (smsgw-mcp)',
      (client, mode, key) =>
        stdioClient({
          apiKey: key ?? keyOf(client, mode),
          clientId: client.client_id,
          baseUrl: system.stack.gatewayUrl,
          caFile: system.stack.certs.caCertFile,
        }),
    ],
  ];

  describe.each(transports)('over %s', (_name, connect) => {
    let client: DemoClient;
    let device: DemoDevice;
    let agent: AgentProcess;
    const open: Client[] = [];

    const session = async (mode: Mode, key?: string) => {
      const mcp = await connect(client, mode, key);
      open.push(mcp);
      return mcp;
    };

    beforeAll(async () => {
      client = await system.createClient();
      device = await system.createDevice(client.client_id, 'mcp phone');
      agent = await system.startAgent(client, device);
    });

    afterAll(async () => {
      await Promise.all(open.map((mcp) => mcp.close()));
    });

    it('when an agent lists the tools, then it gets the seven, each described for a model with its input schema', async () => {
      const mcp = await session('live');
      const { tools } = await mcp.listTools();
      expect(tools.map((t) => t.name).sort()).toEqual([...TOOL_NAMES].sort());
      for (const tool of tools) {
        expect(tool.description!.length).toBeGreaterThan(80);
        expect(tool.inputSchema.type).toBe('object');
      }
      expect(tools.find((t) => t.name === 'send_sms')!.inputSchema.required).toEqual(['to', 'message']);
    });

    it('when an agent sends an SMS with a live key, then the simulated phone delivers it and the status tool says delivered', async () => {
      const mcp = await session('live');
      const text = `Bonjour par MCP ${Date.now()}`;
      const sent = await callTool(mcp, 'send_sms', { to: '+33612345678', message: text });
      expect(sent).toMatchObject({ isError: false, body: { success: true, status: 'queued', device_id: device.device_id } });
      const id = String(sent.body.message_id);
      expect(id).toMatch(/^msg_/);

      const delivered = await eventually(
        async () => {
          const status = await callTool(mcp, 'get_message_status', { message_id: id });
          return status.body.status === 'delivered' ? status.body : undefined;
        },
        20_000,
        `${id} delivered`,
        500,
      );
      expect(delivered).toMatchObject({ message_id: id, to: '+33612345678', message: text });
      expect(agent.sentCount(id)).toBe(1);

      const history = await callTool(mcp, 'search_history', { search: text });
      expect(history.body.data).toEqual([expect.objectContaining({ message_id: id, status: 'delivered' })]);
    });

    it('when a batch is sent, then each recipient gets its message; one bad number refuses the batch with the API code naming it', async () => {
      const mcp = await session('live');
      const batch = await callTool(mcp, 'send_sms_batch', { recipients: ['+33612345001', '+33612345002'], message: 'Lot MCP' });
      expect(batch).toMatchObject({ isError: false, body: { success: true } });
      expect(batch.body.messages).toHaveLength(2);

      const refused = await callTool(mcp, 'send_sms_batch', {
        messages: [
          { to: '+33612345003', message: 'un' },
          { to: 'pas un numéro', message: 'deux' },
        ],
      });
      expect(refused.isError).toBe(true);
      expect(refused.body).toMatchObject({ success: false, error: { code: 'INVALID_PHONE_NUMBER' } });
      expect(JSON.stringify(refused.body)).toContain('messages[1].to');
    });

    it('when the phone receives an SMS, then the inbox tool lists it', async () => {
      const mcp = await session('live');
      const text = `Réponse ${Date.now()}`;
      await system.cli('receive-sms', '--client', client.client_id, '--device', device.device_id, '--from', '+33698765432', '--text', text);
      const received = await eventually(
        async () => {
          const inbox = await callTool(mcp, 'read_inbox', { from: '+33698765432' });
          const found = (inbox.body.data as Record<string, unknown>[]).filter((sms) => sms.message === text);
          return found.length > 0 ? found : undefined;
        },
        20_000,
        'the received SMS in the inbox',
        500,
      );
      expect(received).toEqual([expect.objectContaining({ from: '+33698765432', device_id: device.device_id, message: text })]);
    });

    it('when an agent uses a test key, then an SMS and an OTP work without a phone, the OTP with the documented code', async () => {
      const mcp = await session('test');
      const sent = await callTool(mcp, 'send_sms', { to: '+33612345678', message: 'essai' });
      const id = String(sent.body.message_id);
      await eventually(
        async () => ((await callTool(mcp, 'get_message_status', { message_id: id })).body.status === 'delivered' ? true : undefined),
        20_000,
        `${id} delivered in test mode`,
        500,
      );
      expect(agent.sentCount(id)).toBe(0);

      const otp = await callTool(mcp, 'send_otp', { to: '+33612345678' });
      expect(otp).toMatchObject({ isError: false, body: { success: true } });
      const wrong = await callTool(mcp, 'verify_otp', { otp_id: otp.body.otp_id, code: '000000' });
      expect(wrong.body).toMatchObject({ valid: false });
      const right = await callTool(mcp, 'verify_otp', { otp_id: otp.body.otp_id, code: '123456' });
      expect(right.body).toMatchObject({ success: true, valid: true });
    });

    it('when an input breaks the API rules, then the tool fails with the API code and the field', async () => {
      const mcp = await session('live');
      const bad = await callTool(mcp, 'send_sms', { to: '+33612345678', message: 'x'.repeat(1601) });
      expect(bad).toMatchObject({ isError: true, body: { success: false, error: { code: 'MESSAGE_TOO_LONG' } } });
      const unknown = await callTool(mcp, 'get_message_status', { message_id: 'msg_nope' });
      expect(unknown.body).toMatchObject({ error: { code: 'MESSAGE_NOT_FOUND' } });
    });
  });

  it('when /v1/mcp is called with a wrong key, then the connection is refused with INVALID_API_KEY', async () => {
    const client = await system.createClient();
    const refused = await thrownBy(
      httpClient(system.stack.gatewayUrl, system.stack.certs.caPem, { 'X-API-Key': 'sgw_live_wrong', 'X-Client-ID': client.client_id }),
    );
    expect(refused).toMatchObject({ code: 401, message: expect.stringContaining('"code":"INVALID_API_KEY"') });
    const anonymous = await system.api('/v1/mcp', undefined, { method: 'POST', body: { jsonrpc: '2.0', id: 1, method: 'tools/list' } });
    expect(anonymous).toMatchObject({ status: 400, body: { error: { code: 'MISSING_AUTH_HEADERS' } } });
  });

  it('when /v1/mcp is asked for an event stream (GET) or a session end (DELETE), then it answers 405: the server is stateless', async () => {
    const client = await system.createClient();
    for (const method of ['GET', 'DELETE']) {
      const res = await system.api('/v1/mcp', client, { method });
      expect(res).toMatchObject({ status: 405, body: { success: false, error: { code: 'METHOD_NOT_ALLOWED' } } });
    }
  });

  it('when a client has spent its rate limit on the REST API, then both transports are refused with RATE_LIMIT_EXCEEDED', async () => {
    const client = await system.createClient();
    await eventually(
      async () => ((await system.api('/v1/sms/history', client)).status === 429 ? true : undefined),
      20_000,
      'the rate limit spent',
      0,
    );
    const overHttp = await thrownBy(
      httpClient(system.stack.gatewayUrl, system.stack.certs.caPem, { 'X-API-Key': client.live_api_key, 'X-Client-ID': client.client_id }),
    );
    expect(overHttp).toMatchObject({ code: 429, message: expect.stringContaining('"code":"RATE_LIMIT_EXCEEDED"') });
    const mcp = await stdioClient({
      apiKey: client.live_api_key,
      clientId: client.client_id,
      baseUrl: system.stack.gatewayUrl,
      caFile: system.stack.certs.caCertFile,
    });
    try {
      const history = await callTool(mcp, 'search_history', {});
      expect(history).toMatchObject({ isError: true, body: { error: { code: 'RATE_LIMIT_EXCEEDED' } } });
    } finally {
      await mcp.close();
    }
  });

  it('when smsgw-mcp runs with a wrong key, then each tool call fails with INVALID_API_KEY', async () => {
    const client = await system.createClient();
    const mcp = await stdioClient({
      apiKey: 'sgw_live_wrong',
      clientId: client.client_id,
      baseUrl: system.stack.gatewayUrl,
      caFile: system.stack.certs.caCertFile,
    });
    try {
      const refused = await callTool(mcp, 'send_sms', { to: '+33612345678', message: 'x' });
      expect(refused).toMatchObject({ isError: true, body: { success: false, error: { code: 'INVALID_API_KEY' } } });
    } finally {
      await mcp.close();
    }
  });
});
