import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { readConfig, UsageError } from '../src/config';

describe('the stdio server’s configuration', () => {
  const env = { SMSGW_API_KEY: 'sgw_test_k', SMSGW_CLIENT_ID: 'client_1', SMSGW_BASE_URL: 'https://sms.example.com' };
  const noStack = path.join(os.tmpdir(), 'no-stack-here');

  it('when everything comes from the environment, then it is taken as given', () => {
    expect(readConfig([], env, noStack)).toEqual({ apiKey: 'sgw_test_k', clientId: 'client_1', baseUrl: 'https://sms.example.com' });
  });

  it('when options are given, then they win over the environment', () => {
    const config = readConfig(['--client-id', 'client_2', '--device-id', 'device_1', '--ca-file', 'ca.pem'], env, noStack);
    expect(config).toMatchObject({ clientId: 'client_2', deviceId: 'device_1', caFile: 'ca.pem' });
  });

  it('when the key is missing, or passed as an argument, then it is refused', () => {
    expect(() => readConfig([], { ...env, SMSGW_API_KEY: '' }, noStack)).toThrow(new UsageError('SMSGW_API_KEY is not set'));
    expect(() => readConfig(['--api-key', 'sgw_test_k'], env, noStack)).toThrow(UsageError);
  });

  it('when no gateway is named, then the local stack’s is used with its CA, or the error says how to get one', () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-config-'));
    const { SMSGW_BASE_URL: _unused, ...withoutUrl } = env;
    expect(() => readConfig([], withoutUrl, root)).toThrow(/make dev/);
    fs.mkdirSync(path.join(root, '.stack'));
    fs.writeFileSync(path.join(root, '.stack/dev.json'), JSON.stringify({ gatewayUrl: 'https://127.0.0.1:8443', caFile: '/ca.pem' }));
    expect(readConfig([], withoutUrl, root)).toMatchObject({ baseUrl: 'https://127.0.0.1:8443', caFile: '/ca.pem' });
    fs.rmSync(root, { recursive: true });
  });
});
