import { AckPolicy, DeliverPolicy, type ConsumerMessages, type JsMsg } from '@nats-io/jetstream';
import type { Logger } from './logger';
import type { Nats } from './nats';

export interface DurableConsumerOptions {
  stream: string;
  /** The consumer's name, shared by every replica: each message goes to one of them. */
  durable: string;
  filterSubject: string;
  /** How long a delivered message may stay unsettled before the server delivers it again. Default 30 s. */
  ackWaitMs?: number;
  /**
   * Deliveries in all before the server gives a message up. Default -1 (never): a handler terms
   * what it cannot use and decides itself when to stop retrying (`handleJobFire` terms after its
   * attempts), so the server never drops a message silently.
   */
  maxDeliver?: number;
  /** Unsettled messages the server allows at once (the server's default when unset). */
  maxAckPending?: number;
  /**
   * Messages pulled ahead of the handler. Default 64: in serial mode a message pulled ahead waits
   * behind those before it while its `ackWaitMs` runs, so a small buffer keeps it from coming again.
   */
  pullAhead?: number;
  /**
   * `serial` (default): one message at a time, in stream order. `concurrent`: each message is
   * handled as it arrives (a long job must not hold up a due timer); `stop()` waits for them.
   * `keyed`: messages of different keys (`keyOf`) at once, those of one key one after the other in
   * stream order (a phone's reports of one SMS), at most `pullAhead` in flight.
   */
  concurrency?: 'serial' | 'concurrent' | 'keyed';
  /** The key of a message, with `concurrency: 'keyed'`. */
  keyOf?: (msg: JsMsg) => string;
  /** After a handler threw: how long before the message comes again. Default 2 s. */
  retryDelayMs?: number;
  log: Logger;
}

export interface DurableConsumer {
  /** Stops pulling, then waits for the messages being handled. */
  stop(): Promise<void>;
}

/**
 * Creates (or brings up to date) a durable pull consumer and handles its messages until `stop()`.
 *
 * The handler settles each message: `ack()` once its work is durable, `term()` for a message that
 * can never be used, `nak(ms)` to have it again later. A handler that throws is logged and its
 * message comes again after `retryDelayMs`: an unexpected failure never stops the loop.
 */
export async function runDurableConsumer(
  nats: Pick<Nats, 'js' | 'jsm'>,
  options: DurableConsumerOptions,
  handle: (msg: JsMsg) => Promise<void>,
): Promise<DurableConsumer> {
  const { stream, durable, log } = options;
  await nats.jsm.consumers.add(stream, {
    durable_name: durable,
    ack_policy: AckPolicy.Explicit,
    deliver_policy: DeliverPolicy.All,
    ack_wait: (options.ackWaitMs ?? 30_000) * 1_000_000,
    max_deliver: options.maxDeliver ?? -1,
    ...(options.maxAckPending === undefined ? {} : { max_ack_pending: options.maxAckPending }),
    filter_subject: options.filterSubject,
  });
  const consumer = await nats.js.consumers.get(stream, durable);
  const messages: ConsumerMessages = await consumer.consume({ max_messages: options.pullAhead ?? 64 });
  const retryDelayMs = options.retryDelayMs ?? 2000;
  const running = new Set<Promise<void>>();
  /** With `keyed`: the last task of each key, which the next one of that key waits for. */
  const tails = new Map<string, Promise<void>>();

  const settled = async (msg: JsMsg): Promise<void> => {
    try {
      await handle(msg);
    } catch (err) {
      log.error({ err, subject: msg.subject, consumer: durable }, 'handling a message failed; it will come again');
      msg.nak(retryDelayMs);
    }
  };

  const loop = (async () => {
    for await (const msg of messages) {
      if (options.concurrency === 'concurrent') {
        const task = settled(msg).finally(() => running.delete(task));
        running.add(task);
      } else if (options.concurrency === 'keyed') {
        const key = options.keyOf ? options.keyOf(msg) : '';
        const task = (tails.get(key) ?? Promise.resolve()).then(() => settled(msg));
        tails.set(key, task);
        running.add(task);
        void task.finally(() => {
          running.delete(task);
          if (tails.get(key) === task) tails.delete(key);
        });
        // The server hands out at most pullAhead at a time; past it, wait for one to settle.
        if (running.size >= (options.pullAhead ?? 64)) await Promise.race(running);
      } else {
        await settled(msg);
      }
    }
  })();

  return {
    async stop() {
      await messages.close();
      await loop;
      await Promise.all(running);
    },
  };
}
