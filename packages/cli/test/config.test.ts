import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { configPath, resolveCredentials, writeConfigFile } from '../src/config';

describe('where the command line finds its credentials', () => {
  let dir: string;
  let file: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'smsgw-config-'));
    file = path.join(dir, 'smsgw', 'config.json');
    writeConfigFile(file, {
      profiles: {
        default: { api_key: 'sgw_live_file', client_id: 'client_1', base_url: 'https://gw.example', ca_file: '/ca.pem' },
        test: { api_key: 'sgw_test_file', client_id: 'client_1', base_url: 'https://gw.example' },
      },
    });
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('when nothing says where the file is, then it is under XDG_CONFIG_HOME, else ~/.config', () => {
    expect(configPath({ HOME: '/home/ana' })).toBe('/home/ana/.config/smsgw/config.json');
    expect(configPath({ HOME: '/home/ana', XDG_CONFIG_HOME: '/cfg' })).toBe('/cfg/smsgw/config.json');
    expect(configPath({ SMSGW_CONFIG: '/etc/smsgw.json' })).toBe('/etc/smsgw.json');
  });

  it('when the file is written, then only its owner can read it: it holds keys', () => {
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
  });

  it('when only the environment has credentials, then they are used', () => {
    expect(
      resolveCredentials(
        { SMSGW_API_KEY: 'k', SMSGW_CLIENT_ID: 'c', SMSGW_BASE_URL: 'https://x', SMSGW_CONFIG: path.join(dir, 'none.json') },
        undefined,
      ),
    ).toEqual({
      apiKey: 'k',
      clientId: 'c',
      baseUrl: 'https://x',
    });
  });

  it('when the environment sets some values, then they win over the default profile, which fills the rest', () => {
    expect(resolveCredentials({ XDG_CONFIG_HOME: dir, SMSGW_API_KEY: 'sgw_live_env', SMSGW_DEVICE_ID: 'device_9' }, undefined)).toEqual({
      apiKey: 'sgw_live_env',
      clientId: 'client_1',
      baseUrl: 'https://gw.example',
      caFile: '/ca.pem',
      deviceId: 'device_9',
    });
    expect(resolveCredentials({ XDG_CONFIG_HOME: dir, SMSGW_PROFILE: 'test' }, undefined).apiKey).toBe('sgw_test_file');
  });

  it('when a profile is named with --profile, then it wins over the environment', () => {
    expect(resolveCredentials({ XDG_CONFIG_HOME: dir, SMSGW_API_KEY: 'sgw_live_env' }, 'test').apiKey).toBe('sgw_test_file');
    expect(() => resolveCredentials({ XDG_CONFIG_HOME: dir }, 'staging')).toThrow(/no profile "staging"/);
  });

  it('when values are missing, then the error names the variables to set', () => {
    expect(() => resolveCredentials({ SMSGW_CONFIG: path.join(dir, 'none.json'), SMSGW_CLIENT_ID: 'c' }, undefined)).toThrow(
      /missing SMSGW_API_KEY, SMSGW_BASE_URL/,
    );
  });
});
