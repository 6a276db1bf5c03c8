import { afterAll, describe, expect, it, test } from '@jest/globals';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { freePort, portSlice, reserveAcrossProcesses } from '../src/ports';

test('when freePort answers, then a server can listen on that port', async () => {
  const port = await freePort();

  const server = net.createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', resolve);
  });
  expect((server.address() as net.AddressInfo).port).toBe(port);
  await new Promise((resolve) => server.close(resolve));
});

test('when many ports are asked for, then each is new and below the ephemeral range, in the slice of this worker', async () => {
  const ports = await Promise.all(Array.from({ length: 50 }, () => freePort()));
  const [first, last] = portSlice();
  expect(new Set(ports).size).toBe(50);
  for (const port of ports) {
    expect(port).toBeGreaterThanOrEqual(first);
    expect(port).toBeLessThanOrEqual(last);
  }
  expect(last).toBeLessThan(32_768);
});

test('when two jest workers start stacks side by side, then their ports come from slices that do not overlap', () => {
  const [a0, a1] = portSlice({ JEST_WORKER_ID: '1' });
  const [b0, b1] = portSlice({ JEST_WORKER_ID: '2' });
  expect(a1 < b0 || b1 < a0).toBe(true);
  expect(portSlice({}, 4242)).toEqual(portSlice({}, 4242 + 8));
});

describe('reserveAcrossProcesses', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'smsgw-ports-test-'));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('when a port is reserved, then no other caller gets it for two minutes, and then it may be taken again', () => {
    const now = Date.now();
    expect(reserveAcrossProcesses(20_001, dir, now)).toBe(true);
    expect(reserveAcrossProcesses(20_001, dir, now + 1000)).toBe(false);
    expect(reserveAcrossProcesses(20_002, dir, now + 1000)).toBe(true);
    expect(reserveAcrossProcesses(20_001, dir, fs.statSync(path.join(dir, '20001')).mtimeMs + 120_001)).toBe(true);
  });
});
