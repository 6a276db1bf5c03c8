import { describe, expect, it } from '@jest/globals';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SERVICE_IDENTITIES, type ServiceIdentity } from '@smsgw/platform';
import type { Stack } from '../src/index';
import { attachStack, writeStackDescriptor, type StackDescriptor } from '../src/shared-stack';

/** A started stack as its owner sees it: data, processes and the methods that act on them. */
function ownedStack(): Stack {
  const refuse = () => Promise.reject(new Error('not in this test'));
  return {
    gatewayUrl: 'https://127.0.0.1:4100',
    hubUrl: 'https://127.0.0.1:4200',
    dashboardUrl: 'https://127.0.0.1:4300',
    certs: {
      caCertFile: '/c/ca.pem',
      caKeyFile: '/c/ca.key',
      certFile: '/c/s.pem',
      keyFile: '/c/s.key',
      caPem: 'CA',
      certPem: 'C',
      keyPem: 'K',
    },
    accountAddress: '127.0.0.1:5001',
    messageAddress: '127.0.0.1:5002',
    deviceHubAddress: '127.0.0.1:5003',
    otpAddress: '127.0.0.1:5004',
    schedulerAddress: '127.0.0.1:5005',
    webhookAddress: '127.0.0.1:5006',
    smpp: { host: '127.0.0.1', port: 2775 },
    metricsUrls: {} as Stack['metricsUrls'],
    databaseUrl: 'postgres://127.0.0.1/smsgw_test_ab',
    natsUrl: 'nats://127.0.0.1:4222',
    natsPrefix: 'tab',
    redisUrl: 'redis://127.0.0.1:6379',
    redisPrefix: 'smsgw:tab:',
    busUsers: { redis: {} as Stack['busUsers']['redis'] },
    natsAdmin: { user: 'admin', password: 'secret' },
    services: {} as Stack['services'],
    logDir: '/logs',
    healthAddresses: {} as Stack['healthAddresses'],
    grpcCredentials: (identity: ServiceIdentity) => ({
      mode: 'mtls',
      caFile: '/c/ca.pem',
      certFile: `/c/${identity}.pem`,
      keyFile: `/c/${identity}.key`,
    }),
    addGateway: refuse,
    addDeviceHub: refuse,
    addScheduler: refuse,
    restart: refuse,
    stop: refuse,
  };
}

describe('a stack shared by several test processes', () => {
  it("when another process attaches through the written file, then it reaches the same addresses and every identity's certificates", () => {
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'smsgw-shared-stack-')), 'stack.json');
    writeStackDescriptor(file, ownedStack());

    const attached = attachStack(JSON.parse(fs.readFileSync(file, 'utf8')) as StackDescriptor);

    expect(attached.gatewayUrl).toBe('https://127.0.0.1:4100');
    expect(attached.natsAdmin).toEqual({ user: 'admin', password: 'secret' });
    expect(attached.certs.caPem).toBe('CA');
    for (const identity of SERVICE_IDENTITIES) expect(attached.grpcCredentials(identity).certFile).toBe(`/c/${identity}.pem`);
    fs.rmSync(path.dirname(file), { recursive: true });
  });

  it('when an attached stack is asked to restart, add or stop a service, then it refuses: another process owns them', () => {
    const attached = attachStack(JSON.parse(JSON.stringify({ ...ownedStack(), grpc: {} })) as StackDescriptor);

    expect(() => attached.restart('message')).toThrow('a shared stack cannot restart a service');
    expect(() => attached.stop()).toThrow('a shared stack cannot be stopped');
    expect(() => attached.services['device-hub']).toThrow('a shared stack cannot reach its device-hub process');
  });
});
