import { expect, test } from '@jest/globals';
import net from 'node:net';
import { freePort } from '../src/ports';

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
