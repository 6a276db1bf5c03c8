import { createClient, createLogger } from '@smsgw/platform';
import { messageProto, type message } from '@smsgw/proto';
import { grpcTlsFor } from '@smsgw/testing';
import { MessageCalls } from '../src/sessions/message-calls';
import { MessageStandIn } from './support/stand-ins';

/** The claims and acknowledgements of many phones, gathered into ClaimMany and AcceptMany, against a real gRPC server. */
describe('MessageCalls: many phones in one call to the message service', () => {
  const log = createLogger('message-calls-test', 'silent');

  async function against(standIn: MessageStandIn) {
    const client = createClient<message.MessageServiceClient>(messageProto().MessageService, standIn.address, {
      tls: grpcTlsFor('device-hub'),
    });
    return { calls: new MessageCalls(client, log, 50), close: () => client.close() };
  }

  const claim = (deviceId: string) => ({ deviceId, clientId: 'client_a', leaseMs: 30_000, mode: 'MODE_LIVE' as const });

  it('when phones claim and acknowledge within the window, then each gets its own answer from one ClaimMany and one AcceptMany', async () => {
    const standIn = await MessageStandIn.start();
    const { calls, close } = await against(standIn);
    try {
      standIn.enqueue(
        { messageId: 'msg_a', clientId: 'client_a', deviceId: 'dev_a' },
        { messageId: 'msg_b', clientId: 'client_a', deviceId: 'dev_b' },
      );

      const claimed = await Promise.all(['dev_a', 'dev_b', 'dev_c'].map((d) => calls.claim(claim(d))));
      const accepted = await Promise.all(
        ['msg_a', 'msg_b'].map((messageId, i) =>
          calls.accept({ deviceId: `dev_${'ab'[i]}`, messageId, at: new Date().toISOString(), sim: i + 1 }),
        ),
      );

      expect(claimed.map((c) => c.message?.messageId ?? '')).toEqual(['msg_a', 'msg_b', '']);
      expect(accepted).toEqual([
        { accepted: true, status: 'queued' },
        { accepted: true, status: 'queued' },
      ]);
      expect(standIn.calls).toEqual({ ClaimNext: 0, ClaimMany: 1, AcceptMessage: 0, AcceptMany: 1 });
      expect([...standIn.acceptedSims]).toEqual([
        ['msg_a', 1],
        ['msg_b', 2],
      ]);
    } finally {
      close();
      await standIn.stop();
    }
  });

  it('when the message service is of an earlier version (no ClaimMany, no AcceptMany), then each phone is served by its own call, and nothing is lost', async () => {
    const standIn = await MessageStandIn.start(['ClaimMany', 'AcceptMany']);
    const { calls, close } = await against(standIn);
    try {
      standIn.enqueue(
        { messageId: 'msg_a', clientId: 'client_a', deviceId: 'dev_a' },
        { messageId: 'msg_b', clientId: 'client_a', deviceId: 'dev_b' },
      );

      const claimed = await Promise.all(['dev_a', 'dev_b'].map((d) => calls.claim(claim(d))));
      const accepted = await calls.accept({ deviceId: 'dev_a', messageId: 'msg_a', at: new Date().toISOString(), sim: 0 });

      expect(claimed.map((c) => c.message?.messageId)).toEqual(['msg_a', 'msg_b']);
      expect(accepted).toEqual({ accepted: true, status: 'queued' });
      expect(standIn.calls).toEqual({ ClaimNext: 2, ClaimMany: 0, AcceptMessage: 1, AcceptMany: 0 });
    } finally {
      close();
      await standIn.stop();
    }
  });
});
