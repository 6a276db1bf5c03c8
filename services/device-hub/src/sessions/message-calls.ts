import * as grpc from '@grpc/grpc-js';
import { Batches, untraced, type LogSink, type PromiseClient } from '@smsgw/platform';
import type { message } from '@smsgw/proto';

/** How long a batch waits for more phones' calls: a phone's pause between two SMS is 2 to 3 s. */
export const DEFAULT_BATCH_WINDOW_MS = 20;
/** After a message service without ClaimMany/AcceptMany answered (a rollout), calls go one by one this long. */
const SINGLE_CALLS_MS = 60_000;

type ClaimRequest = message.ClaimNextRequest;
type ClaimAnswer = message.ClaimNextResponse__Output;
type AcceptRequest = message.AcceptMessageRequest;
type AcceptAnswer = message.AcceptMessageResponse__Output;

const NOTHING_CLAIMED: ClaimAnswer = { message: null, attempt: 0, traceparent: '' };

/** Whether the server does not know the method (an older message service during a rollout). */
const unimplemented = (err: unknown) => (err as { cause?: { code?: grpc.status } }).cause?.code === grpc.status.UNIMPLEMENTED;

/**
 * The message service's calls of every phone session of this replica, gathered: the claims of a
 * moment go in one ClaimMany, the acknowledgements in one AcceptMany (each a statement and a call
 * for many phones, not one each). Each session still gets its own answer, or the batch's error.
 */
export class MessageCalls {
  private readonly claims: Batches<string, ClaimRequest, ClaimAnswer>;
  private readonly accepts: Batches<string, AcceptRequest, AcceptAnswer>;
  private singleUntil = 0;

  constructor(
    private readonly messages: PromiseClient<message.MessageServiceClient>,
    private readonly log: LogSink,
    private readonly windowMs = DEFAULT_BATCH_WINDOW_MS,
  ) {
    this.claims = new Batches((items) => this.claimAll(items));
    this.accepts = new Batches((items) => this.acceptAll(items));
  }

  /** A phone's claim (ClaimNext's request, `deviceId` and `clientId` set); one at a time per device. */
  async claim(request: ClaimRequest & { deviceId: string }): Promise<ClaimAnswer> {
    const answers = await this.claims.add(request.deviceId, request, this.windowMs);
    return answers.get(request.deviceId) ?? NOTHING_CLAIMED;
  }

  /** A phone's acknowledgement (AcceptMessage's request). */
  async accept(request: AcceptRequest & { messageId: string }): Promise<AcceptAnswer> {
    const answers = await this.accepts.add(request.messageId, request, this.windowMs);
    return answers.get(request.messageId) ?? { accepted: false, status: '' };
  }

  private async claimAll(items: ReadonlyMap<string, ClaimRequest>): Promise<Map<string, ClaimAnswer>> {
    const keys = [...items.keys()];
    const requests = [...items.values()];
    if (!this.single()) {
      try {
        // Each phone's SMS goes on in its own trace (device-hub deliver): the batched call makes none.
        const { results } = await untraced(() => this.messages.claimMany({ claims: requests }));
        return new Map(keys.map((k, i) => [k, results[i] ?? NOTHING_CLAIMED]));
      } catch (err) {
        if (!unimplemented(err)) throw err;
        this.goSingle('ClaimMany');
      }
    }
    const answers = await untraced(() => Promise.all(requests.map((r) => this.messages.claimNext(r))));
    return new Map(keys.map((k, i) => [k, answers[i]!]));
  }

  private async acceptAll(items: ReadonlyMap<string, AcceptRequest>): Promise<Map<string, AcceptAnswer>> {
    const keys = [...items.keys()];
    const requests = [...items.values()];
    if (!this.single()) {
      try {
        // Each acknowledgement carries its SMS's trace, which the message service goes on with.
        const { results } = await untraced(() => this.messages.acceptMany({ accepts: requests }));
        return new Map(keys.map((k, i) => [k, results[i] ?? { accepted: false, status: '' }]));
      } catch (err) {
        if (!unimplemented(err)) throw err;
        this.goSingle('AcceptMany');
      }
    }
    const answers = await Promise.all(requests.map((r) => this.messages.acceptMessage(r)));
    return new Map(keys.map((k, i) => [k, answers[i]!]));
  }

  private single(): boolean {
    return Date.now() < this.singleUntil;
  }

  private goSingle(method: string): void {
    this.singleUntil = Date.now() + SINGLE_CALLS_MS;
    this.log.warn({ method }, 'the message service does not answer batched calls yet; calling it once per phone for a minute');
  }
}
