import type { Pdu } from 'smpp';
import type { PromiseClient } from '@smsgw/platform';
import type { account } from '@smsgw/proto';
import type { AgentProcess } from './support/agent';
import { concatUdh, createCredential, SmppClient, smppCredentials, textOf } from './support/smpp';
import { TestSystem, type DemoClient, type DemoDevice } from './support/system';

// Issue 40, the SMPP half: an SMPP 3.4 client (the `smpp` package, as CRMs and SMS routers use
// it) binds over TLS with credentials of the account service and sends through simulated phones;
// receipts and received SMS come back as deliver_sm, also after a time unbound and a restart.

const ESME_ROK = 0x00;
const ESME_RBINDFAIL = 0x0d;
const ESME_RTHROTTLED = 0x58;
const RATE_LIMIT = 30;

describe('SMPP server', () => {
  let system: TestSystem;
  let accounts: PromiseClient<account.AccountServiceClient>;
  let client: DemoClient;
  let device: DemoDevice;
  let agent: AgentProcess;
  const open: SmppClient[] = [];

  const session = async () => {
    const s = await SmppClient.open(system.stack);
    open.push(s);
    return s;
  };

  beforeAll(async () => {
    system = await TestSystem.start({ RATE_LIMIT_PER_MINUTE: String(RATE_LIMIT), SMPP_PENDING_POLL_MS: '200' });
    accounts = smppCredentials(system.stack);
    client = await system.createClient();
    device = await system.createDevice(client.client_id, 'smpp phone');
    agent = await system.startAgent(client, device);
  });

  afterAll(async () => {
    for (const s of open) s.close();
    accounts?.close();
    await agent?.kill();
    await system?.stop();
  });

  const receiptOf = (messageId: string) => (pdu: Pdu) => pdu.esm_class === 0x04 && pdu.receipted_message_id === messageId;

  describe('bound as a transceiver', () => {
    let trx: SmppClient;

    beforeAll(async () => {
      const credential = await createCredential(accounts, client.client_id, 'SMPP_BIND_TYPE_TRANSCEIVER');
      trx = await session();
      const bound = await trx.bind('bind_transceiver', credential.systemId, credential.password);
      expect(bound.command_status).toBe(ESME_ROK);
    });

    it('when a 160-character GSM message is submitted, then the phone delivers it and its receipt comes as deliver_sm', async () => {
      const text = 'Bonjour! Votre code de retrait est pret. '.repeat(4).slice(0, 160);
      const resp = await trx.request('submit_sm', {
        source_addr: 'SHOP',
        dest_addr_ton: 1,
        destination_addr: '33612345678',
        data_coding: 0,
        registered_delivery: 1,
        short_message: text,
      });
      expect(resp.command_status).toBe(ESME_ROK);
      const messageId = String(resp.message_id);
      expect(messageId).toMatch(/^msg_/);

      const receipt = await trx.waitForDeliver(receiptOf(messageId));
      expect(receipt.message_state).toBe(2);
      expect(textOf(receipt)).toMatch(
        new RegExp(
          `^id:${messageId} sub:001 dlvrd:001 submit date:\\d{10} done date:\\d{10} stat:DELIVRD err:000 text:Bonjour! Votre code`,
        ),
      );
      expect(receipt.source_addr).toBe('33612345678');
      expect(receipt.destination_addr).toBe('SHOP');
      const status = await system.waitForStatus(client, messageId, 'delivered');
      expect(status).toMatchObject({ to: '+33612345678', message: text, encoding: 'GSM-7' });
    });

    it('when a 400-character UCS-2 message comes in UDH parts, then it is sent as one message and its receipt comes once', async () => {
      const text = 'Привет, ваш заказ готов к выдаче. 日本語も大丈夫です。'.repeat(10).slice(0, 400);
      expect(Array.from(text)).toHaveLength(400);
      // 67 UCS-2 characters a part (134 octets after the 6 of the UDH), as phones and SMS routers cut it.
      const chunks = text.match(/[\s\S]{1,67}/g)!;
      expect(chunks.length).toBe(6);
      const answers = await Promise.all(
        chunks.map((chunk, i) =>
          trx.request('submit_sm', {
            source_addr: 'SHOP',
            dest_addr_ton: 1,
            destination_addr: '33612345679',
            data_coding: 8,
            registered_delivery: 1,
            short_message: { udh: concatUdh(42, chunks.length, i + 1), message: chunk },
          }),
        ),
      );
      expect(answers.map((a) => a.command_status)).toEqual(chunks.map(() => ESME_ROK));
      const ids = new Set(answers.map((a) => String(a.message_id)));
      expect(ids.size).toBe(1);
      const [messageId] = [...ids] as [string];

      await trx.waitForDeliver(receiptOf(messageId));
      const status = await system.waitForStatus(client, messageId, 'delivered');
      expect(status).toMatchObject({ message: text, encoding: 'UCS-2' });
      expect(trx.delivers.filter(receiptOf(messageId))).toHaveLength(1);
    });

    it('when a UCS-2 message comes in three parts with the SAR options, then the parts are joined into one message', async () => {
      const parts = ['Ваш заказ ', 'номер 12345 ', 'готов.'];
      const answers = await Promise.all(
        parts.map((chunk, i) =>
          trx.request('submit_sm', {
            source_addr: 'SHOP',
            dest_addr_ton: 1,
            destination_addr: '33612345670',
            data_coding: 8,
            registered_delivery: 1,
            short_message: chunk,
            sar_msg_ref_num: 7,
            sar_total_segments: 3,
            sar_segment_seqnum: i + 1,
          }),
        ),
      );
      expect(answers.map((a) => a.command_status)).toEqual([ESME_ROK, ESME_ROK, ESME_ROK]);
      const messageId = String(answers[0]!.message_id);
      await trx.waitForDeliver(receiptOf(messageId));
      expect(await system.waitForStatus(client, messageId, 'delivered')).toMatchObject({ message: parts.join('') });
    });

    it('when a message is scheduled a few seconds ahead (relative time), then it waits, then is delivered with its receipt', async () => {
      const submittedAt = Date.now();
      const resp = await trx.request('submit_sm', {
        source_addr: 'SHOP',
        dest_addr_ton: 1,
        destination_addr: '33612345671',
        registered_delivery: 1,
        schedule_delivery_time: '000000000004000R',
        validity_period: '000001000000000R',
        short_message: 'Rappel : votre rendez-vous est demain.',
      });
      expect(resp.command_status).toBe(ESME_ROK);
      const messageId = String(resp.message_id);
      const query = await trx.request('query_sm', { message_id: messageId, source_addr: 'SHOP' });
      expect(query).toMatchObject({ command_status: ESME_ROK, message_id: messageId, message_state: 1 });

      await trx.waitForDeliver(receiptOf(messageId));
      expect(Date.now() - submittedAt).toBeGreaterThanOrEqual(4000);
      const status = await system.waitForStatus(client, messageId, 'delivered');
      expect(Date.parse(String(status.scheduled_at))).toBeGreaterThanOrEqual(submittedAt + 3000);
      const delivered = await trx.request('query_sm', { message_id: messageId, source_addr: 'SHOP' });
      expect(delivered).toMatchObject({ message_state: 2 });
      // The client library reads final_date into a Date.
      expect((delivered.final_date as Date).getTime()).toBeGreaterThanOrEqual(submittedAt + 3000);
    });

    it('when the phone receives an SMS, then it comes to the transceiver as deliver_sm', async () => {
      const text = `Oui, je confirme ${Date.now()}`;
      await system.cli('receive-sms', '--client', client.client_id, '--device', device.device_id, '--from', '+33698765432', '--text', text);
      const mo = await trx.waitForDeliver((pdu) => pdu.esm_class === 0 && textOf(pdu) === text);
      expect(mo.source_addr).toBe('33698765432');
      expect(mo.source_addr_ton).toBe(1);
    });

    it('when a command the server does not know comes, then it answers generic_nack ESME_RINVCMDID, and enquire_link is answered', async () => {
      const link = await trx.request('enquire_link');
      expect(link.command_status).toBe(ESME_ROK);
      const unknown = await trx.request('query_broadcast_sm', { message_id: 'x', source_addr: 'SHOP' });
      expect(unknown.command_status).toBe(0x03);
    });
  });

  it('when the password is wrong, then the bind gets ESME_RBINDFAIL', async () => {
    // Made by the operator's command line this time.
    const credential = await system.cli('create-smpp-credential', '--client', client.client_id);
    expect(credential.password).toMatch(/^[A-Za-z0-9]{8}$/);
    const s = await session();
    const bound = await s.bind('bind_transceiver', String(credential.system_id), 'wrong123');
    expect(bound.command_status).toBe(ESME_RBINDFAIL);
    const revoked = await createCredential(accounts, client.client_id, 'SMPP_BIND_TYPE_TRANSMITTER');
    await accounts.revokeSmppCredential({ clientId: client.client_id, credentialId: revoked.credentialId, userId: '', actorAddress: '' });
    const again = await session();
    expect((await again.bind('bind_transmitter', revoked.systemId, revoked.password)).command_status).toBe(ESME_RBINDFAIL);
  });

  it('when a client sends past its rate limit, then submit_sm gets ESME_RTHROTTLED', async () => {
    const other = await system.createClient();
    await system.createDevice(other.client_id, 'test-mode phone');
    const credential = await createCredential(accounts, other.client_id, 'SMPP_BIND_TYPE_TRANSMITTER', 'KEY_MODE_TEST');
    const tx = await session();
    expect((await tx.bind('bind_transmitter', credential.systemId, credential.password)).command_status).toBe(ESME_ROK);
    const statuses: number[] = [];
    for (let i = 0; i <= RATE_LIMIT; i++) {
      const resp = await tx.request('submit_sm', { dest_addr_ton: 1, destination_addr: '33612345678', short_message: `essai ${i}` });
      statuses.push(resp.command_status);
    }
    expect(statuses.slice(0, RATE_LIMIT)).toEqual(new Array<number>(RATE_LIMIT).fill(ESME_ROK));
    expect(statuses[RATE_LIMIT]).toBe(ESME_RTHROTTLED);
  });

  it('when a receipt is produced while no receiver is bound, then it comes at the next bind, once, across a restart of the service', async () => {
    const credential = await createCredential(accounts, client.client_id, 'SMPP_BIND_TYPE_TRANSCEIVER');
    const tx = await session();
    expect((await tx.bind('bind_transmitter', credential.systemId, credential.password)).command_status).toBe(ESME_ROK);
    const resp = await tx.request('submit_sm', {
      source_addr: 'SHOP',
      dest_addr_ton: 1,
      destination_addr: '33612345672',
      registered_delivery: 1,
      short_message: 'Livraison prevue demain.',
    });
    const messageId = String(resp.message_id);
    await tx.unbindAndClose();
    // Any other receiver of the client is gone too: the receipt has nowhere to go.
    for (const s of open) s.close();
    await system.waitForStatus(client, messageId, 'delivered');
    await new Promise((r) => setTimeout(r, 1000));
    await system.stack.restart('smpp');

    const rx = await session();
    expect((await rx.bind('bind_receiver', credential.systemId, credential.password)).command_status).toBe(ESME_ROK);
    const receipt = await rx.waitForDeliver(receiptOf(messageId));
    expect(textOf(receipt)).toContain('stat:DELIVRD');
    await new Promise((r) => setTimeout(r, 2000));
    expect(rx.delivers.filter(receiptOf(messageId))).toHaveLength(1);
    await rx.unbindAndClose();

    const later = await session();
    expect((await later.bind('bind_receiver', credential.systemId, credential.password)).command_status).toBe(ESME_ROK);
    await new Promise((r) => setTimeout(r, 2000));
    expect(later.delivers.filter(receiptOf(messageId))).toHaveLength(0);
  });
});
