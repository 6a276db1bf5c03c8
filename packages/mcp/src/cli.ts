#!/usr/bin/env node
import path from 'node:path';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { SmsGateway } from '@smsgw/client';
import { readConfig, USAGE, UsageError } from './config';
import { restApi } from './rest-api';
import { createSmsMcpServer } from './tools';

// stdout carries the protocol: anything else this process says goes to stderr.
async function main(): Promise<void> {
  if (process.argv.includes('--help')) {
    process.stderr.write(USAGE);
    return;
  }
  const config = readConfig(process.argv.slice(2), process.env, path.resolve(__dirname, '../../..'));
  // A tool call waits out a short Retry-After (a burst at the limit's edge); a longer one goes back
  // to the agent as RATE_LIMIT_EXCEEDED with retry_after_seconds rather than holding the call.
  const client = new SmsGateway({ ...config, backoff: { maxRetryAfterMs: 5_000 } });
  const server = createSmsMcpServer(restApi(client));
  const transport = new StdioServerTransport();
  const stop = () => void server.close().finally(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  await server.connect(transport);
}

main().catch((err: unknown) => {
  if (err instanceof UsageError) process.stderr.write(`smsgw-mcp: ${err.message}\n\n${USAGE}`);
  else process.stderr.write(`smsgw-mcp: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exitCode = 2;
});
