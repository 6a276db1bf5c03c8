import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import { connectNats, createLogger, type Nats } from '../src';

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

async function startNatsServer(port: number): Promise<ChildProcess> {
  const child = spawn('nats-server', ['-a', '127.0.0.1', '-p', String(port), '-js', '-sd', `/tmp/nats-conn-test-${port}`], {
    stdio: 'ignore',
  });
  for (let i = 0; i < 100; i++) {
    const up = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, '127.0.0.1', () => {
        socket.destroy();
        resolve(true);
      });
      socket.on('error', () => resolve(false));
    });
    if (up) return child;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('nats-server did not start');
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
}

describe('readiness that follows the NATS connection', () => {
  let port: number;
  let server: ChildProcess;
  let nats: Nats | undefined;

  beforeAll(async () => {
    port = await freePort();
    server = await startNatsServer(port);
  });

  afterAll(async () => {
    await nats?.nc.close();
    await stop(server);
  });

  it('when the NATS server goes away and comes back, then the listeners hear false, then true', async () => {
    nats = await connectNats({ url: `nats://127.0.0.1:${port}`, prefix: '', name: 'test', log: createLogger('test', 'silent') });
    const heard: boolean[] = [];
    const next = () => new Promise<boolean>((resolve) => nats!.onConnectionChange((up) => resolve(up)));
    nats.onConnectionChange((up) => heard.push(up));

    const down = next();
    await stop(server);
    expect(await down).toBe(false);

    const back = next();
    server = await startNatsServer(port);
    expect(await back).toBe(true);
    expect(heard).toEqual([false, true]);
  });
});
