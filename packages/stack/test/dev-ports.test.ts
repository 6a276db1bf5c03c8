import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { clashedInternalPort, DEV_PORTS, DevPortError, resolveDevPorts, takeDevLock } from '../src/dev-ports';
import { freePort, portSlice } from '../src/ports';

/** A real listener on a free port of 127.0.0.1, as another program would hold it. */
async function occupy(): Promise<{ port: number; close: () => Promise<void> }> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  return { port, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

/** Every port of make dev set to a free one, so that the test never depends on 8443 and the others. */
async function freeEnv(): Promise<Record<string, string>> {
  const env: Record<string, string> = {};
  for (const p of DEV_PORTS) env[p.variable] = String(await freePort());
  return env;
}

describe('make dev ports', () => {
  it('when a public port is taken, then the error names the port, who needs it and the variable that moves it', async () => {
    const held = await occupy();
    try {
      const env = { ...(await freeEnv()), GATEWAY_PORT: String(held.port) };
      const err = await resolveDevPorts(env).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(DevPortError);
      expect((err as Error).message).toBe(
        `port ${held.port} is taken: the gateway (the API) cannot listen on it. Free it, or set GATEWAY_PORT to another port (e.g. GATEWAY_PORT=${held.port + 1000} make dev).`,
      );
    } finally {
      await held.close();
    }
  });

  it('when an internal port chosen with its variable is taken, then make dev refuses rather than move it', async () => {
    const held = await occupy();
    try {
      const err = await resolveDevPorts({ ...(await freeEnv()), MESSAGE_GRPC_PORT: String(held.port) }).catch((e: unknown) => e);
      expect((err as Error).message).toContain(`port ${held.port} is taken: the message service (gRPC) cannot listen on it`);
      expect((err as Error).message).toContain('MESSAGE_GRPC_PORT');
    } finally {
      await held.close();
    }
  });

  it('when an internal default port is taken, then a free port replaces it and a line says which', async () => {
    const env = await freeEnv();
    delete env.MESSAGE_GRPC_PORT;
    const { ports, moved } = await resolveDevPorts(
      env,
      async (port) => port !== 32052,
      async () => 41234,
    );
    expect(ports.message).toBe(41234);
    expect(moved).toEqual(['port 32052 is taken: the message service (gRPC) listens on 41234 instead (set MESSAGE_GRPC_PORT to choose).']);
  });

  it('when the otp service default health port is held by another program, then a free port replaces it and a line says which', async () => {
    // The clash of the issue: 50154 was taken as an outgoing connection's port. The default is now 32154; hold it for real.
    const held = await new Promise<net.Server | undefined>((resolve) => {
      const server = net.createServer();
      server.once('error', () => resolve(undefined)); // already taken by someone else: just as good
      server.listen(32154, '127.0.0.1', () => resolve(server));
    });
    try {
      const env = await freeEnv();
      delete env.OTP_GRPC_PORT;
      delete env.OTP_GRPC_HEALTH_PORT;
      const { ports, moved } = await resolveDevPorts(env);
      expect(ports['health:otp']).not.toBe(32154);
      expect(moved).toContain(
        `port 32154 is taken: the otp service's health server (plaintext gRPC) listens on ${ports['health:otp']} instead (set OTP_GRPC_HEALTH_PORT to choose).`,
      );
    } finally {
      await new Promise<void>((resolve) => (held ? held.close(() => resolve()) : resolve()));
    }
  });

  it('when a health port would be another port of make dev (its gRPC port + 100), then it moves rather than fail', async () => {
    let env = await freeEnv();
    // The free ports are drawn at random from one slice: the account port set below must not be another's too.
    const clashes = (e: Record<string, string>) =>
      Object.entries(e).some(([k, v]) => k !== 'ACCOUNT_GRPC_PORT' && v === String(Number(e.GATEWAY_METRICS_PORT) - 100));
    while (clashes(env)) env = await freeEnv();
    delete env.ACCOUNT_GRPC_HEALTH_PORT;
    env.ACCOUNT_GRPC_PORT = String(Number(env.GATEWAY_METRICS_PORT) - 100);
    const { ports, moved } = await resolveDevPorts(
      env,
      async () => true,
      async () => 41234,
    );
    expect(ports['health:account']).toBe(41234);
    expect(moved).toEqual([
      `port ${env.GATEWAY_METRICS_PORT} is taken: the account service's health server (plaintext gRPC) listens on 41234 instead (set ACCOUNT_GRPC_HEALTH_PORT to choose).`,
    ]);
  });

  it("when make dev uses its internal defaults, then none lies in the kernel's ephemeral range nor in the range the tests' stacks draw from", () => {
    // Where the kernel picks the local port of an outgoing connection (Linux's default 32768-60999 when unreadable).
    const [low, high] = fs.existsSync('/proc/sys/net/ipv4/ip_local_port_range')
      ? fs.readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number)
      : [32768, 60999];
    const [testLow] = portSlice({ JEST_WORKER_ID: '1' });
    const [, testHigh] = portSlice({ JEST_WORKER_ID: '8' });
    const internal = DEV_PORTS.filter((p) => p.internal).map((p) => p.fallback);
    expect(internal.filter((port) => port >= low! && port <= high!)).toEqual([]);
    expect(internal.filter((port) => port >= testLow && port <= testHigh)).toEqual([]);
    // The health ports' defaults are their gRPC port + 100, as the chart's are.
    for (const p of DEV_PORTS.filter((d) => d.healthOf))
      expect(p.fallback).toBe(DEV_PORTS.find((d) => d.key === p.healthOf)!.fallback + 100);
  });

  it('when a service died at its bind on an internal port make dev chose, then that port may move; a public port or one given by its variable may not', async () => {
    const env = await freeEnv();
    delete env.OTP_GRPC_HEALTH_PORT;
    const { ports } = await resolveDevPorts(env);
    const died = (port: number) =>
      `otp exited during start-up:\nError: No address added out of total 1 resolved\n  errors: [listen EADDRINUSE: address already in use 127.0.0.1:${port}]`;
    expect(clashedInternalPort(died(ports['health:otp']), ports, env)?.variable).toBe('OTP_GRPC_HEALTH_PORT');
    expect(clashedInternalPort(died(ports.gateway), ports, env)).toBeUndefined();
    expect(clashedInternalPort(died(ports.message), ports, env)).toBeUndefined();
    expect(clashedInternalPort('otp was not ready after 30000 ms', ports, env)).toBeUndefined();
  });

  it('when a variable is not a port number, then the error says so', async () => {
    await expect(resolveDevPorts({ ...(await freeEnv()), DASHBOARD_PORT: 'eighty' })).rejects.toThrow(
      'DASHBOARD_PORT=eighty is not a port number',
    );
  });
});

describe('one make dev per data folder', () => {
  it('when a second make dev takes the lock while the first runs, then it is told the first one is running, with its pid', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dev-lock-'));
    const file = path.join(dir, 'dev.lock');
    const holder = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)']);
    try {
      fs.writeFileSync(file, String(holder.pid));
      expect(() => takeDevLock(file)).toThrow(`make dev is already running (pid ${holder.pid})`);
    } finally {
      holder.kill();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('when the lock names a process that is gone, then it is taken over and released at the end', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dev-lock-'));
    const file = path.join(dir, 'dev.lock');
    const gone = spawn(process.execPath, ['-e', '']);
    await new Promise((resolve) => gone.once('exit', resolve));
    try {
      fs.writeFileSync(file, String(gone.pid));
      const release = takeDevLock(file);
      expect(fs.readFileSync(file, 'utf8')).toBe(String(process.pid));
      release();
      expect(fs.existsSync(file)).toBe(false);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
