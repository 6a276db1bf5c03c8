import type { Nats, Pool, PromiseClient } from '@smsgw/platform';
import { schedulerProto, type scheduler } from '@smsgw/proto';
import {
  clientOfAllowedCallers,
  createSandbox,
  DATABASE_URL,
  eventually,
  NATS_URL,
  randomHex,
  sleep,
  startServiceUnderTest,
  type Sandbox,
} from '@smsgw/testing';
import { loadSchedulerConfig } from '../../src/config';
import { schedulerCallers } from '../../src/grpc/scheduler.handlers';
import { start } from '../../src/main';

export { DATABASE_URL, eventually, NATS_URL, randomHex, sleep };

export interface SchedulerReplica {
  client: PromiseClient<scheduler.SchedulerServiceClient>;
  stop(): Promise<void>;
}

/**
 * A schema and NATS prefix of their own, shared by the scheduler replicas
 * started on them (real servers on port 0), plus a NATS connection and a
 * pool for the test to look at what happened. `stop()` removes it all.
 */
export class SchedulerWorld {
  readonly replicas: SchedulerReplica[] = [];

  private constructor(private readonly sandbox: Sandbox) {}

  get schema(): string {
    return this.sandbox.schema;
  }

  get prefix(): string {
    return this.sandbox.natsPrefix;
  }

  get nats(): Nats {
    return this.sandbox.nats!;
  }

  get pool(): Pool {
    return this.sandbox.pool;
  }

  static async create(): Promise<SchedulerWorld> {
    return new SchedulerWorld(await createSandbox({ name: 'scheduler', nats: true }));
  }

  async startReplica(env: Record<string, string> = {}): Promise<SchedulerReplica> {
    const app = await startServiceUnderTest({
      name: 'scheduler',
      loadConfig: loadSchedulerConfig,
      start,
      env: { PERIODIC_JOBS: 'false', ...env },
      on: this.sandbox,
    });
    const client = clientOfAllowedCallers<scheduler.SchedulerServiceClient>(
      schedulerProto().SchedulerService,
      `127.0.0.1:${app.port}`,
      schedulerCallers,
    );
    let stopped = false;
    const replica = {
      client,
      async stop() {
        if (stopped) return;
        stopped = true;
        client.close();
        await app.stop();
      },
    };
    this.replicas.push(replica);
    return replica;
  }

  subject(name: string): string {
    return this.nats.names.timer(name);
  }

  /** Every message the timers stream holds on `subject`, in order. */
  async stored(subject: string): Promise<{ msgId: string | undefined; key: string | undefined; data: string; seq: number }[]> {
    const info = await this.nats.jsm.streams.info(this.nats.names.timersStream);
    const out = [];
    for (let seq = info.state.first_seq; info.state.messages > 0 && seq <= info.state.last_seq; seq++) {
      const m = await this.nats.jsm.streams.getMessage(this.nats.names.timersStream, { seq }).catch(() => null);
      if (!m || m.subject !== subject) continue;
      out.push({ msgId: m.header?.get('Nats-Msg-Id'), key: m.header?.get('Smsgw-Timer-Key'), data: m.string(), seq });
    }
    return out;
  }

  async stop(): Promise<void> {
    for (const r of this.replicas) await r.stop();
    await this.sandbox.cleanUp();
  }
}
