import https from 'node:https';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { REPO_ROOT } from '@smsgw/stack';

/**
 * A fetch that trusts the stack's CA (Node's own fetch takes no CA): the request over
 * node:https, the whole answer read, then handed back as a web Response.
 */
export function fetchTrusting(ca: string): typeof fetch {
  return async (input, init = {}) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    const headers = new Headers(init.headers);
    const body = typeof init.body === 'string' ? init.body : undefined;
    return new Promise<Response>((resolve, reject) => {
      const req = https.request(
        url,
        { method: init.method ?? 'GET', ca, headers: Object.fromEntries(headers.entries()), signal: init.signal ?? undefined },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('error', reject);
          res.on('end', () => {
            const answer = new Headers();
            for (const [name, value] of Object.entries(res.headers)) if (typeof value === 'string') answer.set(name, value);
            const status = res.statusCode ?? 500;
            const payload = status === 204 || status === 304 ? null : Buffer.concat(chunks);
            resolve(new Response(payload, { status, headers: answer }));
          });
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  };
}

/** An MCP client connected to the gateway's /v1/mcp with these credentials. */
export async function httpClient(gatewayUrl: string, ca: string, headers: Record<string, string>): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL(`${gatewayUrl}/v1/mcp`), {
    requestInit: { headers },
    fetch: fetchTrusting(ca),
  });
  const client = new Client({ name: 'e2e', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

/** An MCP client that runs the built stdio server (`smsgw-mcp`) as its child process. */
export async function stdioClient(options: { apiKey: string; clientId: string; baseUrl: string; caFile: string }): Promise<Client> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [
      path.join(REPO_ROOT, 'packages/mcp/dist/cli.js'),
      '--client-id',
      options.clientId,
      '--base-url',
      options.baseUrl,
      '--ca-file',
      options.caFile,
    ],
    env: { SMSGW_API_KEY: options.apiKey },
    stderr: 'pipe',
  });
  const client = new Client({ name: 'e2e', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

/** A tool's answer: the API's JSON body, and whether the tool reported a failure. */
export async function callTool(
  client: Client,
  name: string,
  args: Record<string, unknown>,
): Promise<{ isError: boolean; body: Record<string, unknown> }> {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  const first = result.content[0];
  if (first?.type !== 'text') throw new Error(`${name} answered no text`);
  return { isError: result.isError === true, body: JSON.parse(first.text) as Record<string, unknown> };
}
