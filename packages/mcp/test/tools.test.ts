import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { SmsGateway } from '@smsgw/client';
import { createSmsMcpServer, restApi, ToolFailure, TOOL_NAMES, type SmsApi } from '../src';

// The tools against a stand-in for the API (the end-to-end suite runs them against the real one):
// what each tool passes on, and how failures reach the model.

type Calls = { operation: string; input: unknown; deviceId?: string }[];

function recordingApi(calls: Calls, answer: (operation: string) => unknown = () => ({ success: true })): SmsApi {
  const record =
    (operation: string) =>
    async (input: unknown, deviceId?: string): Promise<unknown> => {
      calls.push({ operation, input, ...(deviceId === undefined ? {} : { deviceId }) });
      return answer(operation);
    };
  return {
    sendSms: record('sendSms'),
    sendBulk: record('sendBulk'),
    sendPersonalized: record('sendPersonalized'),
    sendOtp: record('sendOtp'),
    verifyOtp: record('verifyOtp'),
    messageStatus: record('messageStatus'),
    history: record('history'),
    inbox: record('inbox'),
  };
}

async function connected(api: SmsApi): Promise<Client> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await createSmsMcpServer(api).connect(serverSide);
  const client = new Client({ name: 'test', version: '1.0.0' });
  await client.connect(clientSide);
  return client;
}

async function call(client: Client, name: string, args: Record<string, unknown>) {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  const first = result.content[0];
  return { isError: result.isError === true, body: JSON.parse(first?.type === 'text' ? first.text : 'null') as Record<string, unknown> };
}

describe('the MCP tools', () => {
  it('when the tools are listed, then each has a title, a description for a model and annotations', async () => {
    const client = await connected(recordingApi([]));
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual([...TOOL_NAMES]);
    for (const tool of tools) {
      expect(tool.title).toBeTruthy();
      expect(tool.annotations).toBeDefined();
    }
    expect(tools.filter((t) => t.annotations?.readOnlyHint).map((t) => t.name)).toEqual([
      'get_message_status',
      'search_history',
      'read_inbox',
    ]);
  });

  it('when send_sms is called, then the API gets the body without the fields left out and the device apart', async () => {
    const calls: Calls = [];
    const client = await connected(recordingApi(calls, () => ({ success: true, message_id: 'msg_1' })));
    const answer = await call(client, 'send_sms', { to: '+33612345678', message: 'Bonjour', device_id: 'device_1' });
    expect(answer).toEqual({ isError: false, body: { success: true, message_id: 'msg_1' } });
    expect(calls).toEqual([{ operation: 'sendSms', input: { to: '+33612345678', message: 'Bonjour' }, deviceId: 'device_1' }]);
  });

  it('when send_sms_batch has messages, then it is a personalised batch; with recipients, a bulk one', async () => {
    const calls: Calls = [];
    const client = await connected(recordingApi(calls));
    await call(client, 'send_sms_batch', { messages: [{ to: '+33612345678', message: 'a' }], priority: 2 });
    await call(client, 'send_sms_batch', { recipients: ['+33612345678'], message: 'b' });
    expect(calls).toEqual([
      { operation: 'sendPersonalized', input: { messages: [{ to: '+33612345678', message: 'a' }], priority: 2 } },
      { operation: 'sendBulk', input: { recipients: ['+33612345678'], message: 'b' } },
    ]);
  });

  it('when a filter is a number, then the query carries it as text, as a query string would', async () => {
    const calls: Calls = [];
    const client = await connected(recordingApi(calls));
    await call(client, 'search_history', { status: 'failed', page: 2 });
    await call(client, 'read_inbox', { from: '+33698765432', limit: 10 });
    expect(calls).toEqual([
      { operation: 'history', input: { status: 'failed', page: '2' } },
      { operation: 'inbox', input: { from: '+33698765432', limit: '10' } },
    ]);
  });

  it('when the API refuses, then the tool fails with the error envelope: code, message, details, request id, retry delay', async () => {
    const api = recordingApi([]);
    api.sendOtp = async () => {
      throw new ToolFailure('OTP_RATE_LIMITED', 'Trop de codes.', [{ field: 'to' }], 'req_1', 30);
    };
    const client = await connected(api);
    expect(await call(client, 'send_otp', { to: '+33612345678' })).toEqual({
      isError: true,
      body: {
        success: false,
        error: {
          code: 'OTP_RATE_LIMITED',
          message: 'Trop de codes.',
          details: [{ field: 'to' }],
          request_id: 'req_1',
          retry_after_seconds: 30,
        },
      },
    });
  });

  it('when something else breaks, then the tool fails with INTERNAL_ERROR and nothing of the error', async () => {
    const api = recordingApi([]);
    api.messageStatus = async () => {
      throw new Error('secret +33612345678');
    };
    const client = await connected(api);
    const answer = await call(client, 'get_message_status', { message_id: 'msg_1' });
    expect(answer.isError).toBe(true);
    expect(answer.body).toMatchObject({ error: { code: 'INTERNAL_ERROR' } });
    expect(JSON.stringify(answer.body)).not.toContain('secret');
  });
});

describe('restApi', () => {
  let server: http.Server;
  let seen: { path: string; headers: http.IncomingHttpHeaders }[];

  beforeAll(async () => {
    seen = [];
    server = http.createServer((req, res) => {
      seen.push({ path: req.url ?? '', headers: req.headers });
      res.setHeader('content-type', 'application/json');
      res.setHeader('x-request-id', 'req_42');
      if (req.url?.startsWith('/v1/sms/status/')) {
        res.end(JSON.stringify({ success: true, message_id: 'msg_1', status: 'delivered' }));
        return;
      }
      res.statusCode = 401;
      res.end(JSON.stringify({ success: false, error: { code: 'INVALID_API_KEY', message: 'Clé API invalide.' } }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  });

  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  const gateway = () =>
    new SmsGateway({ apiKey: 'sgw_test_k', clientId: 'client_1', baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}` });

  it('when the gateway answers, then the tool gets its body, read with the caller’s key', async () => {
    const answer = await restApi(gateway()).messageStatus('msg_1');
    expect(answer).toEqual({ success: true, message_id: 'msg_1', status: 'delivered' });
    expect(seen.at(-1)).toMatchObject({ path: '/v1/sms/status/msg_1', headers: { 'x-api-key': 'sgw_test_k', 'x-client-id': 'client_1' } });
  });

  it('when the gateway refuses, then the failure carries its code, its message alone and the request id', async () => {
    const failure = await restApi(gateway())
      .sendSms({ to: '+33612345678', message: 'x' }, 'device_1')
      .catch((err: unknown) => err);
    expect(failure).toBeInstanceOf(ToolFailure);
    expect(failure).toMatchObject({ code: 'INVALID_API_KEY', message: 'Clé API invalide.', requestId: 'req_42' });
    expect(seen.at(-1)?.headers).toMatchObject({ 'x-device-id': 'device_1' });
    expect(seen.at(-1)?.headers['idempotency-key']).toBeTruthy();
  });

  it('when the gateway cannot be reached, then the failure is GATEWAY_UNREACHABLE', async () => {
    const api = restApi(new SmsGateway({ apiKey: 'k', clientId: 'c', baseUrl: 'http://127.0.0.1:1', maxRetries: 0 }));
    await expect(api.inbox({})).rejects.toMatchObject({ code: 'GATEWAY_UNREACHABLE' });
  });
});
