import type { IncomingMessage, ServerResponse } from 'node:http';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { createSmsMcpServer, type SmsApi } from './tools';

/**
 * One MCP request over streamable HTTP, answered statelessly: a server and a transport for this
 * request alone (no session id, JSON answers rather than an event stream), so that any replica of
 * the gateway can answer any request and each request carries its caller's own credentials.
 * `body` is the request's body, already read and parsed by the caller.
 */
export async function serveMcpRequest(api: SmsApi, req: IncomingMessage, res: ServerResponse, body: unknown): Promise<void> {
  const server = createSmsMcpServer(api);
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  res.once('close', () => {
    void transport.close();
    void server.close();
  });
  await server.connect(transport);
  await transport.handleRequest(req, res, body);
}
