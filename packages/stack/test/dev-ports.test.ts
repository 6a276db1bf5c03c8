import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { DEV_PORTS, DevPortError, resolveDevPorts, takeDevLock } from '../src/dev-ports';
import { freePort } from '../src/ports';

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
      async (port) => port !== 50052,
      async () => 41234,
    );
    expect(ports.message).toBe(41234);
    expect(moved).toEqual(['port 50052 is taken: the message service (gRPC) listens on 41234 instead (set MESSAGE_GRPC_PORT to choose).']);
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
