import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createPool, hashSecret, migrate, newId } from '@smsgw/platform';
import { DeviceRepository } from '../src/data/device.repository';
import type { DeviceRow } from '../src/data/device-row';
import { DATABASE_URL, deviceUseCasesOn, HubCluster, postPair, randomHex } from './support/hub';

const UNAMBIGUOUS = '23456789ABCDEFGHJKMNPQRSTUVWXYZ';
const MIGRATIONS = path.resolve(__dirname, '../migrations');

/** A code of the issued shape that no device holds: right lookup part (when given), random secret. */
function guessCode(lookup = ''): string {
  let code = lookup;
  while (code.length < 34) code += UNAMBIGUOUS[Math.floor(Math.random() * UNAMBIGUOUS.length)];
  return code;
}

function codeOf(pairingUrl: string): string {
  return new URL(pairingUrl).searchParams.get('code')!;
}

/** A device password that differs from `password` in its last character only. */
function wrongPassword(password: string): string {
  const last = password.at(-1)!;
  return password.slice(0, -1) + (last === 'Z' ? 'Y' : 'Z');
}

describe('pairing over HTTPS (two hub replicas)', () => {
  let hub: HubCluster;
  let clientNumber = 0;
  let addressNumber = 0;
  const newClientId = () => `client_${Date.now()}${String(++clientNumber).padStart(4, '0')}`;
  // Each test speaks from addresses of its own, so that the limit per address of one test does
  // not spill into another.
  const newAddress = () => `127.0.${Math.floor(++addressNumber / 250) + 1}.${(addressNumber % 250) + 2}`;

  // 30 phones per client: the fleet of 25 below fits, the cap's test fills it.
  const PHONES_PER_CLIENT = 30;

  beforeAll(async () => {
    hub = await HubCluster.start(2, { HUB_MAX_PHONES_PER_CLIENT: String(PHONES_PER_CLIENT) });
  });

  afterAll(async () => {
    await hub?.stop();
  });

  const pair = (body: unknown, from: string, replica = 0) => postPair(hub.replicas[replica]!.agentUrl, hub.certs.caPem, body, from);

  it('when a device is created, then its pairing code has at least 128 bits, is valid 15 minutes, and pairs once', async () => {
    const before = Date.now();
    const created = await hub.first.client.createDevice({ clientId: newClientId(), name: 'Pixel' });
    const code = codeOf(created.pairingUrl);

    expect(code).toBe(created.pairingCode);
    expect(code).toMatch(new RegExp(`^[${UNAMBIGUOUS}]{34}$`));
    // The first 8 characters find the device; the other 26 are the secret.
    expect((code.length - 8) * Math.log2(UNAMBIGUOUS.length)).toBeGreaterThanOrEqual(128);
    const ttl = Date.parse(created.pairingExpiresAt) - before;
    expect(ttl).toBeGreaterThan(14 * 60_000);
    expect(ttl).toBeLessThanOrEqual(15 * 60_000 + 1000);

    const from = newAddress();
    const first = await pair({ pairing_code: code }, from);
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ success: true, device_id: created.deviceId, device_token: expect.stringMatching(/^dtk_/) });
    const again = await pair({ pairing_code: code }, from, 1);
    expect(again.status).toBe(401);
    expect(again.body).toEqual({ success: false, error: { code: 'INVALID_PAIRING', message: expect.any(String) } });
  });

  it('when devices of two clients have passwords with the same first group, then each pairs with its own password, typed loosely', async () => {
    const repo = new DeviceRepository(hub.pool);
    const clients = [newClientId(), newClientId()];
    const passwords = ['K7M2-AAAA-BBBB-CCCC', 'K7M2-DDDD-EEEE-FFFF'];
    const ids: string[] = [];
    for (const [i, clientId] of clients.entries()) {
      const row = await repo.create(
        {
          deviceId: newId('device'),
          clientId,
          name: `phone ${i}`,
          passwordLookup: 'K7M2',
          passwordHash: hashSecret(passwords[i]!.replace(/-/g, '')),
          pairingCodeLookup: guessCode().slice(0, 8),
          pairingCodeHash: hashSecret(guessCode()),
          pairingExpiresAt: new Date(Date.now() + 60_000),
        },
        10,
      );
      ids.push((row as DeviceRow).device_id);
    }

    const a = await pair({ client_id: clients[0], device_password: passwords[0]!.toLowerCase() }, newAddress());
    const b = await pair({ client_id: clients[1], device_password: passwords[1]!.replace(/-/g, ' ') }, newAddress(), 1);
    const crossed = await pair({ client_id: clients[0], device_password: passwords[1] }, newAddress());

    expect([a.status, a.body.device_id]).toEqual([200, ids[0]]);
    expect([b.status, b.body.device_id]).toEqual([200, ids[1]]);
    expect(crossed.status).toBe(401);
  });

  it('when one address keeps guessing codes on both replicas, then past 20 failures it gets 429 with Retry-After, even with a right code, while its successes never counted and another address still pairs', async () => {
    const attacker = newAddress();
    // A fleet paired from the same address first: successful pairings do not count.
    const fleet = newClientId();
    for (let i = 0; i < 25; i++) {
      const phone = await hub.first.client.createDevice({ clientId: fleet, name: `fleet ${i}` });
      expect((await pair({ client_id: fleet, device_password: phone.devicePassword }, attacker, i % 2)).status).toBe(200);
    }
    const created = await hub.first.client.createDevice({ clientId: newClientId(), name: 'target' });

    // Sent all at once, half to each replica: the count is exact across replicas.
    const answers = await Promise.all(Array.from({ length: 30 }, (_, i) => pair({ pairing_code: guessCode() }, attacker, i % 2)));
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses).toEqual([...Array<number>(20).fill(401), ...Array<number>(10).fill(429)]);

    const refused = answers.find((a) => a.status === 429)!;
    expect(refused.body).toEqual({ success: false, error: { code: 'RATE_LIMIT_EXCEEDED', message: expect.stringMatching(/appairage/) } });
    expect(Number(refused.retryAfter)).toBeGreaterThanOrEqual(1);
    expect(Number(refused.retryAfter)).toBeLessThanOrEqual(15 * 60);

    const rightButThrottled = await pair({ pairing_code: created.pairingCode }, attacker);
    expect(rightButThrottled.status).toBe(429);
    const owner = await pair({ pairing_code: created.pairingCode }, newAddress(), 1);
    expect([owner.status, owner.body.device_id]).toEqual([200, created.deviceId]);
  });

  it('when a pairing code is tried wrong 5 times, then it is locked: the right code is refused with 429 and Retry-After', async () => {
    const created = await hub.first.client.createDevice({ clientId: newClientId(), name: 'locked' });
    const lookup = created.pairingCode.slice(0, 8);

    // From five addresses, so that no address reaches its own limit.
    for (let i = 0; i < 5; i++) expect((await pair({ pairing_code: guessCode(lookup) }, newAddress(), i % 2)).status).toBe(401);
    const right = await pair({ pairing_code: created.pairingCode }, newAddress());

    expect(right.status).toBe(429);
    expect(right.body).toEqual({ success: false, error: { code: 'RATE_LIMIT_EXCEEDED', message: expect.stringMatching(/bloqué/) } });
    expect(Number(right.retryAfter)).toBeGreaterThan(14 * 60);
    expect(Number(right.retryAfter)).toBeLessThanOrEqual(15 * 60);
  });

  it('when a device password is tried wrong 5 times, then it is locked; a right password before that clears the count', async () => {
    const clientId = newClientId();
    const created = await hub.first.client.createDevice({ clientId, name: 'typed' });
    const wrong = { client_id: clientId, device_password: wrongPassword(created.devicePassword) };
    const right = { client_id: clientId, device_password: created.devicePassword };

    for (let round = 0; round < 2; round++) {
      for (let i = 0; i < 4; i++) expect((await pair(wrong, newAddress(), i % 2)).status).toBe(401);
      expect((await pair(right, newAddress())).status).toBe(200);
    }
    for (let i = 0; i < 5; i++) expect((await pair(wrong, newAddress(), i % 2)).status).toBe(401);
    const locked = await pair(right, newAddress());

    expect(locked.status).toBe(429);
    expect(locked.body).toMatchObject({ success: false, error: { code: 'RATE_LIMIT_EXCEEDED' } });
    expect(Number(locked.retryAfter)).toBeGreaterThan(0);
  });

  it('when one device pairs with its right password more than 5 times in the window, then the next pairing is refused with 429 and Retry-After, from any address', async () => {
    const clientId = newClientId();
    const created = await hub.first.client.createDevice({ clientId, name: 'taken over again and again' });
    const right = { client_id: clientId, device_password: created.devicePassword };
    for (let i = 0; i < 5; i++) expect((await pair(right, newAddress(), i % 2)).status).toBe(200);

    const refused = await pair(right, newAddress());

    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({
      success: false,
      error: { code: 'RATE_LIMIT_EXCEEDED', message: expect.stringMatching(/^Trop d'appairages de cet appareil/) },
    });
    expect(Number(refused.retryAfter)).toBeGreaterThan(0);
    // Another device of the client pairs as usual.
    const sibling = await hub.first.client.createDevice({ clientId, name: 'sibling' });
    expect((await pair({ client_id: clientId, device_password: sibling.devicePassword }, newAddress())).status).toBe(200);
  });

  it('when a client has as many phones as its cap, then another is refused LIMIT_REACHED with the cap in words, even asked at once on both replicas, until one is removed', async () => {
    const clientId = newClientId();
    const made: string[] = [];
    for (let i = 0; i < PHONES_PER_CLIENT - 2; i++)
      made.push((await hub.first.client.createDevice({ clientId, name: `phone ${i}` })).deviceId);
    // The last two places asked for six times at once, on both replicas.
    const attempts = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        hub.replicas[i % 2]!.client.createDevice({ clientId, name: `racing ${i}` }).then(
          (d) => d.deviceId,
          (err: { code: string; message: string }) => err,
        ),
      ),
    );
    made.push(...attempts.filter((a): a is string => typeof a === 'string'));
    const refused = attempts.filter((a) => typeof a !== 'string') as { code: string; message: string }[];

    expect(refused.map((r) => [r.code, r.message])).toEqual(
      Array(4).fill([
        'LIMIT_REACHED',
        `Un compte peut avoir ${PHONES_PER_CLIENT} téléphones au plus : retirez-en un avant d'en ajouter un autre.`,
      ]),
    );
    expect(made).toHaveLength(PHONES_PER_CLIENT);
    await hub.first.client.removeDevice({ clientId, deviceId: made[0]! });
    await expect(hub.first.client.createDevice({ clientId, name: 'after a removal' })).resolves.toMatchObject({
      deviceId: expect.stringMatching(/^device_/),
    });
  });

  it("when the message service asks which devices are their clients', then only each client's own are answered, removed ones included", async () => {
    const [a, b] = [newClientId(), newClientId()];
    const ofA = await hub.first.client.createDevice({ clientId: a, name: 'a' });
    const ofB = await hub.first.client.createDevice({ clientId: b, name: 'b' });
    const removed = await hub.first.client.createDevice({ clientId: a, name: 'gone' });
    await hub.first.client.removeDevice({ clientId: a, deviceId: removed.deviceId });

    const { devices } = await hub.replicas[1]!.client.ownedDevices({
      devices: [
        { clientId: a, deviceId: ofA.deviceId },
        { clientId: a, deviceId: ofB.deviceId },
        { clientId: b, deviceId: ofB.deviceId },
        { clientId: a, deviceId: removed.deviceId },
        { clientId: a, deviceId: 'device_unknown' },
      ],
    });

    expect(devices.map((d) => `${d.clientId}/${d.deviceId}`).sort()).toEqual(
      [`${a}/${ofA.deviceId}`, `${b}/${ofB.deviceId}`, `${a}/${removed.deviceId}`].sort(),
    );
  });

  it('when a pairing code is 16 minutes old, then it is refused as expired', async () => {
    const created = await hub.first.client.createDevice({ clientId: newClientId(), name: 'late' });
    // Sixteen minutes pass for this code.
    await hub.pool.query(`UPDATE devices SET pairing_expires_at = pairing_expires_at - interval '16 minutes' WHERE device_id = $1`, [
      created.deviceId,
    ]);

    const late = await pair({ pairing_code: created.pairingCode }, newAddress());

    expect(late.status).toBe(401);
    expect(late.body).toMatchObject({ success: false, error: { code: 'INVALID_PAIRING' } });
  });

  it('when 20,000 devices are created for one client, then every creation succeeds with distinct passwords and codes', async () => {
    // What is tested is the draws, not the hash: 20,000 scrypt hashes would take minutes.
    const devices = deviceUseCasesOn(hub);
    const clientId = newClientId();
    const passwords = new Set<string>();
    const codes = new Set<string>();
    const BATCH = 200;
    for (let done = 0; done < 20_000; done += BATCH) {
      const batch = await Promise.all(Array.from({ length: BATCH }, (_, i) => devices.create(clientId, `phone ${done + i}`)));
      for (const created of batch) {
        passwords.add(created.password);
        codes.add(created.pairingCode);
      }
    }

    expect(passwords.size).toBe(20_000);
    expect(codes.size).toBe(20_000);
    const { rows } = await hub.pool.query<{ n: number; lookups: number }>(
      'SELECT count(*)::int AS n, count(DISTINCT password_lookup)::int AS lookups FROM devices WHERE client_id = $1',
      [clientId],
    );
    // About 215 first groups are drawn twice among 20,000 (923,521 values): the clash is handled, not avoided.
    expect(rows[0]!.n).toBe(20_000);
    expect(rows[0]!.lookups).toBe(20_000);
  }, 90_000);
  it('when a device is created or rotated, then its password is stored as a salted scrypt hash, and a SHA-256 hash of before still pairs and is upgraded to scrypt', async () => {
    const clientId = newClientId();
    const created = await hub.first.client.createDevice({ clientId, name: 'Pixel' });
    const stored = async () =>
      (await hub.pool.query<{ password_hash: Buffer }>('SELECT password_hash FROM devices WHERE device_id = $1', [created.deviceId]))
        .rows[0]!.password_hash;
    expect((await stored()).toString('utf8')).toMatch(/^scrypt\$15\$8\$1\$[A-Za-z0-9+/=]{24}\$[A-Za-z0-9+/=]{44}$/);

    const normalized = created.devicePassword.replace(/-/g, '');
    await hub.pool.query('UPDATE devices SET password_hash = $2 WHERE device_id = $1', [created.deviceId, hashSecret(normalized)]);
    expect(await stored()).toEqual(hashSecret(normalized));
    expect((await pair({ client_id: clientId, device_password: created.devicePassword }, newAddress())).status).toBe(200);
    expect((await stored()).toString('utf8')).toMatch(/^scrypt\$15\$8\$1\$/);
    expect((await pair({ client_id: clientId, device_password: created.devicePassword }, newAddress(), 1)).status).toBe(200);
  });

  it('when a device is rotated, then the old password and pairing code are refused at once and the new ones pair; when revoked, then its password pairs no more', async () => {
    const clientId = newClientId();
    const created = await hub.first.client.createDevice({ clientId, name: 'Pixel' });
    const rotated = await hub.replicas[1]!.client.rotateDeviceCredentials({ clientId, deviceId: created.deviceId });
    expect(rotated.deviceId).toBe(created.deviceId);
    expect(rotated.devicePassword).not.toBe(created.devicePassword);

    expect((await pair({ client_id: clientId, device_password: created.devicePassword }, newAddress())).status).toBe(401);
    expect((await pair({ pairing_code: created.pairingCode }, newAddress())).status).toBe(401);
    expect((await pair({ client_id: clientId, device_password: rotated.devicePassword }, newAddress())).status).toBe(200);
    expect((await pair({ pairing_code: rotated.pairingCode }, newAddress(), 1)).status).toBe(200);

    const again = await hub.first.client.rotateDeviceCredentials({ clientId, deviceId: created.deviceId });
    await hub.first.client.revokeDeviceCredentials({ clientId, deviceId: created.deviceId });
    expect((await pair({ client_id: clientId, device_password: again.devicePassword }, newAddress())).status).toBe(401);
    expect((await pair({ pairing_code: again.pairingCode }, newAddress())).status).toBe(401);
    // Another client's device is not found.
    await expect(hub.first.client.rotateDeviceCredentials({ clientId: newClientId(), deviceId: created.deviceId })).rejects.toMatchObject({
      code: 'INVALID_DEVICE_ID',
    });
  });
});

describe('upgrade of an existing hub database', () => {
  it('when 002 is applied, then a device created before keeps pairing with its password and its old 8-character code is void', async () => {
    const schema = `t_${randomHex()}`;
    const pool = createPool({ url: DATABASE_URL, schema, max: 2 });
    const before = await fs.mkdtemp(path.join(os.tmpdir(), 'device-hub-migrations-'));
    let hub: HubCluster | undefined;
    try {
      await fs.copyFile(path.join(MIGRATIONS, '001_init.sql'), path.join(before, '001_init.sql'));
      await migrate(pool, { schema, dir: before });
      await pool.query(
        `INSERT INTO devices (device_id, client_id, name, password_lookup, password_hash, pairing_code_hash, pairing_expires_at)
         VALUES ('device_OLD1', 'client_42', 'old phone', 'ABCD', $1, $2, now() + interval '1 day')`,
        [hashSecret('ABCDEFGHJKMNPQRS'), hashSecret('K7M2Q9XA')],
      );

      hub = await HubCluster.start(1, {}, schema);
      const pair = (body: unknown) => postPair(hub!.first.agentUrl, hub!.certs.caPem, body);

      expect((await pair({ pairing_code: 'K7M2Q9XA' })).status).toBe(401);
      const byPassword = await pair({ client_id: 'client_42', device_password: 'ABCD-EFGH-JKMN-PQRS' });
      expect([byPassword.status, byPassword.body.device_id]).toEqual([200, 'device_OLD1']);
    } finally {
      await hub?.stop();
      await pool.end();
      await fs.rm(before, { recursive: true, force: true });
    }
  });
});
