import { connectNats, createLogger, createPool, quoteIdent, type Nats, type Pool, type PromiseClient } from '@smsgw/platform';
import { schedulerProto, type scheduler } from '@smsgw/proto';
import { loadSchedulerConfig } from '../../src/config';
import { schedulerCallers } from '../../src/grpc/scheduler.handlers';
import { start } from '../../src/main';
import { DATABASE_URL, eventually, NATS_URL, randomHex, sleep, clientOfAllowedCallers, grpcTlsEnv } from '@smsgw/testing';

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

  private constructor(
    readonly schema: string,
    readonly prefix: string,
    readonly nats: Nats,
    readonly pool: Pool,
  ) {}

  static async create(): Promise<SchedulerWorld> {
    const schema = `t_${randomHex()}`;
    const prefix = `t${randomHex(5)}`;
    const nats = await connectNats({ url: NATS_URL, prefix, name: 'scheduler-test', log: createLogger('scheduler-test', 'silent') });
    return new SchedulerWorld(schema, prefix, nats, createPool({ url: DATABASE_URL, schema, max: 2 }));
  }

  async startReplica(env: Record<string, string> = {}): Promise<SchedulerReplica> {
    const app = await start(
      loadSchedulerConfig({
        DATABASE_URL,
        DATABASE_SCHEMA: this.schema,
        GRPC_PORT: '0',
        GRPC_HOST: '127.0.0.1',
        ...grpcTlsEnv('scheduler'),
        NATS_URL,
        NATS_PREFIX: this.prefix,
        PERIODIC_JOBS: 'false',
        ...env,
      }),
      createLogger('scheduler-test', process.env.TEST_LOG_LEVEL ?? 'silent'),
    );
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
    await this.nats.jsm.streams.delete(this.nats.names.timersStream).catch(() => undefined);
    await this.nats.nc.drain();
    await this.pool.query(`DROP SCHEMA IF EXISTS ${quoteIdent(this.schema)} CASCADE`);
    await this.pool.end();
  }
}
