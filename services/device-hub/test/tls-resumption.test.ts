import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import { ConfigError } from '@smsgw/platform';
import { loadDeviceHubConfig } from '../src/config';
import { readTicketKeys } from '../src/http/agent-server';
import { start } from '../src/main';
import { sleep } from '@smsgw/testing';
import { DATABASE_URL, HubCluster } from './support/hub';

interface Handshake {
  resumed: boolean;
  /**
   * The session to offer next time, as a phone keeps it: the last one the hub gave (TLS 1.3: a
   * ticket, after the handshake), else the one offered (Node's server gives none on a resumption).
   */
  session: Buffer | undefined;
  protocol: string | null;
}

/**
 * A phone's TLS connection to the hub's endpoint, offering `session` when given: one GET /healthz,
 * then the connection ends. TLS 1.3 tickets come after the handshake, so the answer is awaited.
 */
function handshake(agentUrl: string, caPem: string, session?: Buffer): Promise<Handshake> {
  const { hostname, port } = new URL(agentUrl);
  return new Promise((resolve, reject) => {
    let received: Buffer | undefined;
    const socket = tls.connect({ host: hostname, port: Number(port), ca: caPem, servername: '', session });
    socket.on('session', (s: Buffer) => (received = s));
    // Asked once the handshake is done: the socket forgets it when it closes.
    let resumed = false;
    let protocol: string | null = null;
    socket.once('secureConnect', () => {
      resumed = socket.isSessionReused();
      protocol = socket.getProtocol();
      socket.end(`GET /healthz HTTP/1.1\r\nHost: ${hostname}\r\nConnection: close\r\n\r\n`);
    });
    let answer = '';
    socket.on('data', (chunk: Buffer) => (answer += chunk.toString('utf8')));
    socket.once('error', reject);
    socket.once('close', () => {
      if (!answer.startsWith('HTTP/1.1 200')) return reject(new Error(`the hub answered ${JSON.stringify(answer.slice(0, 40))}`));
      resolve({ resumed, session: received ?? session, protocol });
    });
  });
}

describe('TLS session resumption on the phones endpoint (HUB_TLS_TICKET_KEYS_FILE)', () => {
  let dir: string;
  let sharedKeys: string;
  let otherKeys: string;

  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'smsgw-ticket-keys-'));
    sharedKeys = path.join(dir, 'shared');
    otherKeys = path.join(dir, 'other');
    fs.writeFileSync(sharedKeys, `${randomBytes(48).toString('base64')}\n`, { mode: 0o600 });
    fs.writeFileSync(otherKeys, randomBytes(48).toString('base64'), { mode: 0o600 });
  });

  afterAll(() => {
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('when replicas share the ticket keys, then a phone resumes on another replica and after a restart; with other keys it makes a full handshake', async () => {
    const replicas = await HubCluster.start(2, { HUB_TLS_TICKET_KEYS_FILE: sharedKeys });
    const caPem = replicas.certs.caPem;
    let onOtherReplica: Handshake;
    try {
      const first = await handshake(replicas.replicas[0]!.agentUrl, caPem);
      expect(first).toMatchObject({ resumed: false, protocol: 'TLSv1.3' });
      expect(first.session).toBeDefined();

      onOtherReplica = await handshake(replicas.replicas[1]!.agentUrl, caPem, first.session);
      expect(onOtherReplica.resumed).toBe(true);
    } finally {
      await replicas.stop();
    }

    // A new process with the same file: the ticket the phone kept from before the restart still works.
    const restarted = await HubCluster.start(1, { HUB_TLS_TICKET_KEYS_FILE: sharedKeys });
    try {
      expect((await handshake(restarted.first.agentUrl, caPem, onOtherReplica.session)).resumed).toBe(true);
    } finally {
      await restarted.stop();
    }

    const otherFleet = await HubCluster.start(1, { HUB_TLS_TICKET_KEYS_FILE: otherKeys });
    try {
      const refused = await handshake(otherFleet.first.agentUrl, caPem, onOtherReplica.session);
      expect(refused.resumed).toBe(false);
      // The full handshake still connects the phone, and gives it a ticket of these keys.
      expect((await handshake(otherFleet.first.agentUrl, caPem, refused.session)).resumed).toBe(true);
    } finally {
      await otherFleet.stop();
    }
  });

  it('when the keys rotate (new ones first, the old ones kept second), then a ticket of the old keys still resumes and is renewed; once the old keys are dropped, a ticket of the new ones still resumes', async () => {
    const keys = path.join(dir, 'rotating');
    const [oldKeys, newKeys, newerKeys] = [randomBytes(48), randomBytes(48), randomBytes(48)];
    fs.writeFileSync(keys, oldKeys.toString('base64'), { mode: 0o600 });
    const hub = await HubCluster.start(1, { HUB_TLS_TICKET_KEYS_FILE: keys, HUB_TLS_TICKET_KEYS_RELOAD_MS: '200' });
    const caPem = hub.certs.caPem;
    try {
      const before = await handshake(hub.first.agentUrl, caPem);

      // What the secrets Job writes: the new keys, then the current ones, as two base64 lines.
      fs.writeFileSync(keys, `${newKeys.toString('base64')}\n${oldKeys.toString('base64')}\n`);
      await sleep(600);
      const across = await handshake(hub.first.agentUrl, caPem, before.session);
      expect(across.resumed).toBe(true);

      // The next rotation drops the old keys: the renewed ticket (of the new keys) still resumes, the old one no more.
      fs.writeFileSync(keys, `${newerKeys.toString('base64')}\n${newKeys.toString('base64')}\n`);
      await sleep(600);
      expect((await handshake(hub.first.agentUrl, caPem, across.session)).resumed).toBe(true);
      expect((await handshake(hub.first.agentUrl, caPem, before.session)).resumed).toBe(false);
    } finally {
      await hub.stop();
    }
  });

  it('when the file turns bad while the hub runs, then the keys stay as they were and sessions still resume', async () => {
    const keys = path.join(dir, 'turning-bad');
    fs.writeFileSync(keys, randomBytes(48).toString('base64'));
    const hub = await HubCluster.start(1, { HUB_TLS_TICKET_KEYS_FILE: keys, HUB_TLS_TICKET_KEYS_RELOAD_MS: '200' });
    try {
      const first = await handshake(hub.first.agentUrl, hub.certs.caPem);
      fs.writeFileSync(keys, 'not base64 at all!');
      await sleep(600);
      expect((await handshake(hub.first.agentUrl, hub.certs.caPem, first.session)).resumed).toBe(true);
    } finally {
      await hub.stop();
    }
  });

  it('when no ticket keys are set, then each process has keys of its own: a restarted hub cannot resume a session', async () => {
    const before = await HubCluster.start(1);
    const caPem = before.certs.caPem;
    let session: Buffer | undefined;
    try {
      session = (await handshake(before.first.agentUrl, caPem)).session;
      // Resumption on the same process works as before.
      expect((await handshake(before.first.agentUrl, caPem, session)).resumed).toBe(true);
    } finally {
      await before.stop();
    }
    const after = await HubCluster.start(1);
    try {
      expect((await handshake(after.first.agentUrl, caPem, session)).resumed).toBe(false);
    } finally {
      await after.stop();
    }
  });

  describe('the setting', () => {
    const problemOf = (file: string): string => {
      try {
        readTicketKeys(file);
      } catch (err) {
        expect(err).toBeInstanceOf(ConfigError);
        return (err as ConfigError).problems.join('\n');
      }
      throw new Error('the file was accepted');
    };

    it('when the file holds two keys (two base64 lines of 48 bytes), then both are read, the current first', () => {
      const two = path.join(dir, 'two');
      const [current, previous] = [randomBytes(48), randomBytes(48)];
      fs.writeFileSync(two, `${current.toString('base64')}\n${previous.toString('base64')}\n`);
      expect(readTicketKeys(two)).toEqual(Buffer.concat([current, previous]));
    });

    it('when the file holds the base64 of 48 bytes, then those bytes are the ticket keys; unset, each process has its own', () => {
      const config = loadDeviceHubConfig({
        DATABASE_URL,
        GRPC_TLS: 'off',
        TLS_CERT_FILE: '/unused/cert.pem',
        TLS_KEY_FILE: '/unused/key.pem',
        HUB_TLS_TICKET_KEYS_FILE: sharedKeys,
      });
      expect(config.agents.ticketKeysFile).toBe(sharedKeys);
      expect(readTicketKeys(sharedKeys)).toEqual(Buffer.from(fs.readFileSync(sharedKeys, 'utf8').trim(), 'base64'));
      expect(readTicketKeys(sharedKeys)).toHaveLength(48);
      expect(
        loadDeviceHubConfig({ DATABASE_URL, GRPC_TLS: 'off', TLS_CERT_FILE: 'c', TLS_KEY_FILE: 'k' }).agents.ticketKeysFile,
      ).toBeUndefined();
    });

    it('when the file holds another length, is not base64 or cannot be read, then the hub refuses to start, naming the file and never its content; no such file: no shared keys', async () => {
      const short = path.join(dir, 'short');
      const secret = randomBytes(32).toString('base64');
      fs.writeFileSync(short, secret);
      expect(problemOf(short)).toMatch(
        /HUB_TLS_TICKET_KEYS_FILE=".*short": the file must hold the base64 of 48 random bytes .*it holds 32 bytes/,
      );
      expect(problemOf(short)).not.toContain(secret);

      const raw = path.join(dir, 'raw');
      fs.writeFileSync(raw, randomBytes(48));
      expect(problemOf(raw)).toMatch(
        /HUB_TLS_TICKET_KEYS_FILE=".*raw": the file must hold the base64 of 48 random bytes .*it is not base64/,
      );

      expect(problemOf(dir)).toMatch(/HUB_TLS_TICKET_KEYS_FILE=".*": cannot be read \(EISDIR\)/);
      // The chart mounts the key only if its Secret has it (a Secret made before the ticket keys may not).
      expect(readTicketKeys(path.join(dir, 'missing'))).toBeUndefined();

      // The hub itself stops at start, before it connects to anything.
      const config = loadDeviceHubConfig({
        DATABASE_URL,
        GRPC_TLS: 'off',
        TLS_CERT_FILE: 'c',
        TLS_KEY_FILE: 'k',
        HUB_TLS_TICKET_KEYS_FILE: short,
      });
      await expect(start(config)).rejects.toThrow(/HUB_TLS_TICKET_KEYS_FILE=".*short": the file must hold the base64 of 48 random bytes/);
    });
  });
});
