import tls from 'node:tls';
import { connectNats, createClient, createLogger, createPool, type Nats, type Pool, type PromiseClient } from '@smsgw/platform';
import { messageProto, type message } from '@smsgw/proto';
import { eventually, grpcTlsFor, startDeviceOwners, startServiceProcess, type ServiceProcessUnderTest } from '@smsgw/testing';
import { DATABASE_URL, HubCluster, NATS_URL, postPair, randomHex } from './support/hub';
import { Phone } from './support/phone';
import { publishedReports } from './support/reports';

/**
 * The hub's dispatch loop and its sessions against real servers: the real
 * message service (its build, as a process), real hub replicas on port 0,
 * Postgres, Redis and NATS; the phone is a WebSocket client speaking
 * PROTOCOL.md by hand.
 */

describe('device-hub sessions: dispatch, acknowledgement, takeover, presence and revocation', () => {
  const natsPrefix = `t${randomHex(5)}`;
  let messageService: ServiceProcessUnderTest;
  let owners: Awaited<ReturnType<typeof startDeviceOwners>>;
  let messages: PromiseClient<message.MessageServiceClient>;
  let messagePool: Pool;
  let hub: HubCluster;
  let nats: Nats;

  beforeAll(async () => {
    // The message service asks a stand-in whose devices are whose: every device is its client's here.
    owners = await startDeviceOwners();
    messageService = await startServiceProcess({
      service: 'message',
      natsPrefix,
      env: { OTP_SEAL_KEY: randomHex(32), SCHEDULER_GRPC_ADDR: '127.0.0.1:1', DEVICE_HUB_GRPC_ADDR: owners.address },
      logFolder: 'device-hub-tests',
    });
    const port = messageService.port;
    messages = createClient<message.MessageServiceClient>(messageProto().MessageService, messageService.address, {
      tls: grpcTlsFor('gateway'),
    });
    messagePool = createPool({ url: DATABASE_URL, schema: messageService.schema, max: 2 });
    hub = await HubCluster.start(
      2,
      {
        MESSAGE_GRPC_ADDR: `127.0.0.1:${port}`,
        DISPATCH_INTERVAL_MIN_MS: '100',
        DISPATCH_INTERVAL_MAX_MS: '200',
        DISPATCH_LEASE_MS: '4000',
        PRESENCE_TTL_MS: '1500',
        // Pings every 500 ms refresh the presence (TTL 1.5 s); two missed pongs drop a connection.
        AGENT_PING_INTERVAL_MS: '500',
        HUB_CREDENTIAL_CHECK_MS: '500',
      },
      undefined,
      natsPrefix,
    );
    nats = await connectNats({
      url: NATS_URL,
      prefix: natsPrefix,
      name: 'device-hub-test',
      log: createLogger('device-hub-test', 'silent'),
    });
  }, 60_000);

  afterAll(async () => {
    await nats?.nc.drain();
    await hub?.stop();
    messages?.close();
    await messagePool?.end();
    await messageService?.stop();
    await owners?.stop(100);
  });

  async function pairedDevice(): Promise<{ clientId: string; deviceId: string; token: string }> {
    const clientId = `client_${Date.now()}${Math.floor(Math.random() * 1000)}`;
    const created = await hub.first.client.createDevice({ clientId, name: 'test phone' });
    const paired = await postPair(hub.first.agentUrl, hub.certs.caPem, { client_id: clientId, device_password: created.devicePassword });
    expect(paired.status).toBe(200);
    return { clientId, deviceId: created.deviceId, token: paired.body.device_token as string };
  }

  const status = async (clientId: string, messageId: string) =>
    (await messages.getMessage({ clientId, messageId, mode: 'MODE_LIVE' })).status;

  it('when a queued SMS waits for a connected phone, then the phone gets it, acknowledges, reports, and the message ends delivered; a cancel after the acknowledgement is refused', async () => {
    const { clientId, deviceId, token } = await pairedDevice();
    const phone = await Phone.connect(hub.first.agentUrl, hub.certs.caPem, token);
    expect(await phone.next('hello')).toMatchObject({ device_id: deviceId });

    const sent = await messages.sendBatch({
      clientId,
      mode: 'MODE_LIVE',
      priority: 3,
      deviceIds: [deviceId, deviceId],
      messages: [
        { to: '+33612345678', text: 'Premier' },
        { to: '+33612345679', text: 'Second' },
      ],
    });
    const [first, second] = sent.messages.map((m) => m.messageId);
    const sms = await phone.next('sms');
    expect(sms).toMatchObject({ message_id: first, to: '+33612345678', text: 'Premier' });
    // The second is not handed out before the first is acknowledged.
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(phone.frames.filter((f) => f.type === 'sms')).toEqual([]);

    phone.send({ type: 'ack', message_id: first });
    // Recorded synchronously: a cancel is refused even though no report was made.
    await eventually(
      async () => (await messagePool.query('SELECT accepted_at FROM messages WHERE message_id = $1', [first])).rows[0]?.accepted_at,
      5000,
      'the acknowledgement',
    );
    await expect(messages.cancelMessage({ clientId, messageId: first!, mode: 'MODE_LIVE' })).rejects.toMatchObject({
      code: 'MESSAGE_NOT_CANCELLABLE',
    });

    phone.send({ type: 'report', message_id: first, status: 'sent', at: new Date().toISOString() });
    expect(await phone.next('report_ack')).toMatchObject({ message_id: first, status: 'sent' });
    phone.send({ type: 'report', message_id: first, status: 'delivered', at: new Date().toISOString() });
    expect(await phone.next('report_ack')).toMatchObject({ message_id: first, status: 'delivered' });
    await eventually(async () => (await status(clientId, first!)) === 'delivered', 10_000, 'delivered');

    expect(await phone.next('sms')).toMatchObject({ message_id: second });
    phone.ws.close();
  });

  it('when a second connection of the same device arrives, then the first is closed with 4002 and the new one receives the work', async () => {
    const { clientId, deviceId, token } = await pairedDevice();
    const older = await Phone.connect(hub.first.agentUrl, hub.certs.caPem, token);
    await older.next('hello');
    // The newer one connects to the other replica: the takeover crosses replicas.
    const newer = await Phone.connect(hub.replicas[1]!.agentUrl, hub.certs.caPem, token);
    await newer.next('hello');
    expect(await older.closed()).toBe(4002);

    const sent = await messages.sendBatch({
      clientId,
      mode: 'MODE_LIVE',
      priority: 3,
      deviceIds: [deviceId],
      messages: [{ to: '+33612345678', text: 'Pour le nouveau' }],
    });
    expect(await newer.next('sms')).toMatchObject({ message_id: sent.messages[0]!.messageId });
    expect(older.frames.filter((f) => f.type === 'sms')).toEqual([]);
    newer.ws.close();
  });

  it('when a phone keeps its connection but stops answering pings, then its presence expires, the device reads offline and the hub drops it', async () => {
    const { clientId, deviceId, token } = await pairedDevice();
    const answering = await Phone.connect(hub.first.agentUrl, hub.certs.caPem, token);
    await answering.next('hello');
    // A phone that answers stays online past several TTLs.
    await new Promise((resolve) => setTimeout(resolve, 3500));
    expect((await hub.first.client.getDevice({ clientId, deviceId })).status).toBe('online');
    answering.ws.close();
    await answering.closed();

    const silent = await Phone.connect(hub.first.agentUrl, hub.certs.caPem, token, { answerPings: false });
    await silent.next('hello');
    expect((await hub.first.client.getDevice({ clientId, deviceId })).status).toBe('online');
    await eventually(async () => (await hub.first.client.getDevice({ clientId, deviceId })).status === 'offline', 5000, 'offline');
    await silent.closed(5000);
  });

  it('when a device token is revoked, then the open connection is closed with 4001 and the token is refused at the next connect', async () => {
    const { clientId, deviceId, token } = await pairedDevice();
    const phone = await Phone.connect(hub.first.agentUrl, hub.certs.caPem, token);
    await phone.next('hello');

    expect((await hub.first.client.revokeDeviceTokens({ clientId, deviceId })).revoked).toBeGreaterThan(0);
    expect(await phone.closed()).toBe(4001);
    await expect(Phone.connect(hub.replicas[1]!.agentUrl, hub.certs.caPem, token)).rejects.toThrow(/401/);
  });

  it('when the device pairs again with its password, then the phone holding the earlier token is closed within seconds and that token is refused, while the new one connects', async () => {
    const clientId = `client_${Date.now()}${Math.floor(Math.random() * 1000)}`;
    const created = await hub.first.client.createDevice({ clientId, name: 'password leaked' });
    const first = await postPair(hub.first.agentUrl, hub.certs.caPem, { client_id: clientId, device_password: created.devicePassword });
    const owner = await Phone.connect(hub.first.agentUrl, hub.certs.caPem, first.body.device_token as string);
    await owner.next('hello');

    const second = await postPair(hub.replicas[1]!.agentUrl, hub.certs.caPem, {
      client_id: clientId,
      device_password: created.devicePassword,
    });

    expect(second.status).toBe(200);
    expect(await owner.closed(5000)).toBe(4001);
    await expect(Phone.connect(hub.first.agentUrl, hub.certs.caPem, first.body.device_token as string)).rejects.toThrow(/401/);
    const other = await Phone.connect(hub.replicas[1]!.agentUrl, hub.certs.caPem, second.body.device_token as string);
    await other.next('hello');
    other.ws.close();
  });

  it("when a phone reports on another tenant's or another device's message, then it gets report_ack but nothing is stored, and the real phone's reports still land, even after it reconnects to another replica", async () => {
    const owner = await pairedDevice();
    const intruder = await pairedDevice();
    // Another device of the owner's client.
    const siblingOfOwner = await hub.first.client.createDevice({ clientId: owner.clientId, name: 'second phone' });
    const siblingPaired = await postPair(hub.first.agentUrl, hub.certs.caPem, {
      client_id: owner.clientId,
      device_password: siblingOfOwner.devicePassword,
    });
    expect(siblingPaired.status).toBe(200);

    const sent = await messages.sendBatch({
      clientId: owner.clientId,
      mode: 'MODE_LIVE',
      priority: 3,
      deviceIds: [owner.deviceId],
      messages: [{ to: '+33612345678', text: 'A moi' }],
    });
    const messageId = sent.messages[0]!.messageId;
    // What the hubs store in JetStream (the message service consumes it as it comes).
    const published = publishedReports(nats);

    for (const [token, url] of [
      [intruder.token, hub.first.agentUrl],
      [siblingPaired.body.device_token as string, hub.replicas[1]!.agentUrl],
    ] as const) {
      const forger = await Phone.connect(url, hub.certs.caPem, token);
      await forger.next('hello');
      for (const status of ['sent', 'delivered', 'failed']) {
        forger.send({
          type: 'report',
          message_id: messageId,
          status,
          at: new Date().toISOString(),
          ...(status === 'failed' ? { error: { code: 'NO_SERVICE', message: 'x' } } : {}),
        });
        // Acknowledged, so that an honest phone with a stale report stops sending it.
        expect(await forger.next('report_ack')).toMatchObject({ message_id: messageId, status });
      }
      forger.ws.close();
    }
    await nats.nc.flush();
    expect(published.of(intruder.deviceId)).toEqual([]);
    expect(published.of(siblingOfOwner.deviceId)).toEqual([]);
    expect(await status(owner.clientId, messageId)).toBe('queued');

    // The owner gets it, acknowledges, then reports from a new connection on the other replica.
    const phone = await Phone.connect(hub.first.agentUrl, hub.certs.caPem, owner.token);
    expect(await phone.next('sms')).toMatchObject({ message_id: messageId });
    phone.send({ type: 'ack', message_id: messageId });
    phone.send({ type: 'report', message_id: messageId, status: 'sent', at: new Date().toISOString() });
    expect(await phone.next('report_ack')).toMatchObject({ message_id: messageId, status: 'sent' });
    phone.ws.close();
    await phone.closed();
    const again = await Phone.connect(hub.replicas[1]!.agentUrl, hub.certs.caPem, owner.token);
    await again.next('hello');
    again.send({ type: 'report', message_id: messageId, status: 'delivered', at: new Date().toISOString() });
    expect(await again.next('report_ack')).toMatchObject({ message_id: messageId, status: 'delivered' });
    await eventually(async () => (await status(owner.clientId, messageId)) === 'delivered', 10_000, 'delivered');
    expect(published.of(owner.deviceId).map((r) => r.status)).toEqual(['sent', 'delivered']);
    published.stop();
    again.ws.close();
  });

  it("when a device's tokens are revoked and no replica gets the NATS order, then each replica still closes its phone's connection within a few seconds", async () => {
    const a = await pairedDevice();
    const b = await pairedDevice();
    const onFirst = await Phone.connect(hub.first.agentUrl, hub.certs.caPem, a.token);
    const onSecond = await Phone.connect(hub.replicas[1]!.agentUrl, hub.certs.caPem, b.token);
    await Promise.all([onFirst.next('hello'), onSecond.next('hello')]);

    // As a lost order would leave it: revoked in the database, nothing sent over NATS.
    await hub.pool.query('UPDATE device_tokens SET revoked_at = now() WHERE device_id = ANY($1)', [[a.deviceId, b.deviceId]]);
    const started = Date.now();
    expect(await onFirst.closed(5000)).toBe(4001);
    expect(await onSecond.closed(5000)).toBe(4001);
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('when a phone is removed, or its credentials rotated or revoked, then its connection on the other replica closes; after a rotation the old token and password are refused and the new password connects', async () => {
    for (const action of ['remove', 'rotate', 'revoke'] as const) {
      const { clientId, deviceId, token } = await pairedDevice();
      const phone = await Phone.connect(hub.replicas[1]!.agentUrl, hub.certs.caPem, token);
      await phone.next('hello');
      const rotated =
        action === 'remove'
          ? await hub.first.client.removeDevice({ clientId, deviceId })
          : action === 'rotate'
            ? await hub.first.client.rotateDeviceCredentials({ clientId, deviceId })
            : await hub.first.client.revokeDeviceCredentials({ clientId, deviceId });
      expect(await phone.closed(5000)).toBe(4001);
      await expect(Phone.connect(hub.first.agentUrl, hub.certs.caPem, token)).rejects.toThrow(/401/);
      if ('devicePassword' in rotated) {
        const paired = await postPair(hub.first.agentUrl, hub.certs.caPem, {
          client_id: clientId,
          device_password: rotated.devicePassword,
        });
        expect(paired.status).toBe(200);
        const again = await Phone.connect(hub.replicas[1]!.agentUrl, hub.certs.caPem, paired.body.device_token as string);
        expect(await again.next('hello')).toMatchObject({ device_id: deviceId });
        again.ws.close();
      }
    }
  });

  it('when a paired phone upgrades with a handshake ws refuses (no key, another Upgrade), then the answer is 400 MALFORMED_REQUEST in the error envelope', async () => {
    const { token } = await pairedDevice();
    const url = new URL(hub.first.agentUrl);
    const upgrade = (lines: string[]) =>
      new Promise<string>((resolve) => {
        let text = '';
        const socket = tls.connect({ host: url.hostname, port: Number(url.port), ca: hub.certs.caPem }, () =>
          socket.write(
            ['GET /v1/agent HTTP/1.1', 'Host: hub', 'Connection: Upgrade', `Authorization: Bearer ${token}`, ...lines, '', ''].join('\r\n'),
          ),
        );
        socket.on('data', (c: Buffer) => (text += c.toString('utf8')));
        socket.on('error', () => undefined);
        socket.on('close', () => resolve(text));
      });

    for (const lines of [
      ['Upgrade: websocket', 'Sec-WebSocket-Version: 13', 'Sec-WebSocket-Protocol: smsgw.agent.v1'],
      ['Upgrade: h2c', 'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==', 'Sec-WebSocket-Version: 13'],
    ]) {
      const answer = await upgrade(lines);
      expect(answer).toMatch(/^HTTP\/1\.1 400 /);
      expect(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4))).toMatchObject({
        success: false,
        error: { code: 'MALFORMED_REQUEST' },
      });
    }
  });
});
