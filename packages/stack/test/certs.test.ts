import { afterEach, beforeEach, expect, test } from '@jest/globals';
import { X509Certificate } from 'node:crypto';
import fs from 'node:fs/promises';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { ensureCerts, ensureTicketKeys, type Certs } from '../src/certs';

let dir: string;

beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'smsgw-certs-'));
});

afterEach(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

async function withHttpsServer<T>(certs: Certs, use: (port: number) => Promise<T>): Promise<T> {
  const server = https.createServer({ cert: certs.certPem, key: certs.keyPem }, (_req, res) => res.end('hello over tls'));
  await new Promise<void>((resolve) => server.listen(0, resolve));
  try {
    return await use((server.address() as AddressInfo).port);
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
}

/** A GET that trusts `ca` alone, or Node's default roots when `ca` is undefined. */
function get(url: string, ca: string | undefined): Promise<string> {
  return new Promise((resolve, reject) => {
    const request = https.get(url, { ca, agent: false }, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (body += chunk));
      response.on('end', () => resolve(body));
      response.on('error', reject);
    });
    request.on('error', reject);
  });
}

test('when a client trusts only the generated CA, then it reaches the https server by 127.0.0.1 and by localhost', async () => {
  const certs = await ensureCerts(dir);

  await withHttpsServer(certs, async (port) => {
    await expect(get(`https://127.0.0.1:${port}/`, certs.caPem)).resolves.toBe('hello over tls');
    await expect(get(`https://localhost:${port}/`, certs.caPem)).resolves.toBe('hello over tls');
  });
});

test('when a client does not trust the generated CA, then the TLS handshake is refused', async () => {
  const certs = await ensureCerts(dir);

  await withHttpsServer(certs, async (port) => {
    await expect(get(`https://127.0.0.1:${port}/`, undefined)).rejects.toMatchObject({
      code: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
    });
  });
});

test('when ensureCerts runs again on the same directory, then it reuses the files and keeps the keys private', async () => {
  const first = await ensureCerts(dir);
  const second = await ensureCerts(dir);

  expect(second).toEqual(first);
  expect(await fs.readFile(path.join(dir, 'server.pem'), 'utf8')).toBe(first.certPem);
  expect(await fs.readFile(path.join(dir, 'ca.pem'), 'utf8')).toBe(first.caPem);
  expect((await fs.stat(path.join(dir, 'ca-key.pem'))).mode & 0o777).toBe(0o600);
  expect((await fs.stat(path.join(dir, 'server-key.pem'))).mode & 0o777).toBe(0o600);
});

test('when the certificate is generated, then it names every host, serves TLS servers only, and lasts a year under a ten-year CA', async () => {
  const certs = await ensureCerts(dir);
  const server = new X509Certificate(certs.certPem);
  const ca = new X509Certificate(certs.caPem);

  expect(server.checkHost('localhost')).toBe('localhost');
  expect(server.checkIP('127.0.0.1')).toBe('127.0.0.1');
  expect(server.checkIP('::1')).toBeDefined();
  expect(server.keyUsage).toEqual(['1.3.6.1.5.5.7.3.1']);
  expect(server.ca).toBe(false);
  expect(server.verify(ca.publicKey)).toBe(true);
  expect(ca.ca).toBe(true);
  expect(ca.subject).toContain('CN=smsgw local development CA');
  const years = (x509: X509Certificate) => (Date.parse(x509.validTo) - Date.now()) / (365 * 24 * 3600 * 1000);
  expect(years(server)).toBeCloseTo(1, 1);
  expect(years(ca)).toBeCloseTo(10, 1);
  expect(BigInt(`0x${server.serialNumber}`)).toBeGreaterThan(0n);
});

test('when a host the certificate does not cover is requested, then a new certificate is issued by the same CA', async () => {
  const first = await ensureCerts(dir);
  const second = await ensureCerts(dir, ['localhost', '127.0.0.1', '::1', 'smsgw.test']);

  expect(second.caPem).toBe(first.caPem);
  expect(second.certPem).not.toBe(first.certPem);
  expect(new X509Certificate(second.certPem).checkHost('smsgw.test')).toBe('smsgw.test');
  await withHttpsServer(second, async (port) => {
    await expect(get(`https://127.0.0.1:${port}/`, first.caPem)).resolves.toBe('hello over tls');
  });
});

test('when the server certificate file is damaged, then it is replaced by one the same CA signed', async () => {
  const first = await ensureCerts(dir);
  await fs.writeFile(path.join(dir, 'server.pem'), 'not a certificate');

  const second = await ensureCerts(dir);

  expect(second.caPem).toBe(first.caPem);
  expect(new X509Certificate(second.certPem).verify(new X509Certificate(first.caPem).publicKey)).toBe(true);
});

test('when the CA key no longer matches the CA certificate, then both the CA and the server certificate are replaced', async () => {
  const first = await ensureCerts(dir);
  await fs.copyFile(path.join(dir, 'server-key.pem'), path.join(dir, 'ca-key.pem'));

  const second = await ensureCerts(dir);

  expect(second.caPem).not.toBe(first.caPem);
  expect(new X509Certificate(second.certPem).verify(new X509Certificate(second.caPem).publicKey)).toBe(true);
});

test('when the hub ticket keys are ensured again, then the same 48 private bytes are kept; a damaged file is replaced', async () => {
  const file = await ensureTicketKeys(dir);
  const keys = await fs.readFile(file, 'utf8');
  expect(Buffer.from(keys.trim(), 'base64')).toHaveLength(48);
  expect((await fs.stat(file)).mode & 0o777).toBe(0o600);
  expect(await fs.readFile(await ensureTicketKeys(dir), 'utf8')).toBe(keys);

  await fs.writeFile(file, 'too short');
  const replaced = await fs.readFile(await ensureTicketKeys(dir), 'utf8');
  expect(Buffer.from(replaced.trim(), 'base64')).toHaveLength(48);
  expect(replaced).not.toBe(keys);
});
