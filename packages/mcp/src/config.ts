import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';

/** What the stdio server needs to reach the API as its caller. */
export interface StdioConfig {
  apiKey: string;
  clientId: string;
  baseUrl: string;
  caFile?: string;
  deviceId?: string;
}

export class UsageError extends Error {
  override name = 'UsageError';
}

export const USAGE = `smsgw-mcp: the SMS gateway's tools for an AI agent, over MCP on stdin/stdout.

  SMSGW_API_KEY=sgw_test_… smsgw-mcp --client-id client_… [--base-url https://…] [--ca-file ca.pem] [--device-id device_…]

The key is read from SMSGW_API_KEY only (an argument is visible to every user of the machine).
Each option may come from the environment instead: SMSGW_CLIENT_ID, SMSGW_BASE_URL, SMSGW_CA_FILE,
SMSGW_DEVICE_ID. Without a base URL, the local stack's (.stack/dev.json of make dev) is used,
with its CA certificate.
`;

/** `.stack/dev.json`, which the local stack writes: its gateway and CA certificate. */
function localStack(repoRoot: string): { gatewayUrl?: string; caFile?: string } | undefined {
  const file = path.join(repoRoot, '.stack', 'dev.json');
  if (!fs.existsSync(file)) return undefined;
  return JSON.parse(fs.readFileSync(file, 'utf8')) as { gatewayUrl?: string; caFile?: string };
}

/** Reads the command line and the environment; throws UsageError naming what is missing. */
export function readConfig(argv: string[], env: NodeJS.ProcessEnv, repoRoot: string): StdioConfig {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: false,
      options: {
        'client-id': { type: 'string' },
        'base-url': { type: 'string' },
        'ca-file': { type: 'string' },
        'device-id': { type: 'string' },
      },
    }));
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  const apiKey = env.SMSGW_API_KEY;
  const clientId = values['client-id'] ?? env.SMSGW_CLIENT_ID;
  if (!apiKey) throw new UsageError('SMSGW_API_KEY is not set');
  if (!clientId) throw new UsageError('no client id: give --client-id or SMSGW_CLIENT_ID');
  let baseUrl = values['base-url'] ?? env.SMSGW_BASE_URL;
  let caFile = values['ca-file'] ?? env.SMSGW_CA_FILE;
  if (!baseUrl) {
    const stack = localStack(repoRoot);
    if (!stack?.gatewayUrl) throw new UsageError('no gateway: give --base-url or SMSGW_BASE_URL, or start the local stack (make dev)');
    baseUrl = stack.gatewayUrl;
    caFile ??= stack.caFile;
  }
  const deviceId = values['device-id'] ?? env.SMSGW_DEVICE_ID;
  return { apiKey, clientId, baseUrl, ...(caFile ? { caFile } : {}), ...(deviceId ? { deviceId } : {}) };
}
