import './instrumentation';
import path from 'node:path';
import { createLogger, createPool, migrate, runMain, startGrpcService, timerLoop, type Logger } from '@smsgw/platform';
import { stopTelemetry } from '@smsgw/platform/telemetry';
import { accountProto } from '@smsgw/proto';
import { loadAccountConfig, type AccountConfig } from './config';
import { AccountRepository } from './data/account.repository';
import { AuditRepository } from './data/audit.repository';
import { MembersRepository } from './data/members.repository';
import { TwoFactorRepository } from './data/two-factor.repository';
import { SmppCredentialRepository } from './data/smpp-credential.repository';
import { accountHandlers, accountCallers } from './grpc/account.handlers';

const MIGRATIONS = path.resolve(__dirname, '../migrations');

export async function start(config: AccountConfig = loadAccountConfig(), log: Logger = createLogger('account')) {
  const pool = createPool({
    url: config.database.url,
    log,
    schema: config.database.schema,
    max: config.database.poolMax,
    applicationName: 'account',
  });
  const audit = new AuditRepository(pool);
  const server = await startGrpcService({
    listen: config.grpc,
    tls: config.grpcTls,
    callers: accountCallers,
    name: 'smsgw.account.v1.AccountService',
    definition: accountProto().AccountService.service,
    handlers: accountHandlers(
      new AccountRepository(pool),
      config.emailLinks,
      audit,
      new MembersRepository(pool),
      new TwoFactorRepository(pool),
      new SmppCredentialRepository(pool),
    ),
    log,
  });
  await migrate(pool, { schema: config.database.schema, dir: MIGRATIONS, log });
  server.ready();
  // The audit log keeps a year: older rows go, the only deletion its trigger allows (docs/contributors/timers.md).
  const purge = timerLoop({ name: 'audit-purge', intervalMs: 3600_000, firstDelayMs: 60_000, tick: () => audit.purge(), log });
  log.info({ port: server.port }, 'account service ready');
  return {
    port: server.port,
    healthPort: server.healthPort,
    async stop() {
      await server.stop();
      await purge.stop();
      await pool.end();
      await stopTelemetry();
    },
  };
}

if (require.main === module) {
  const log = createLogger('account');
  runMain(log, () => start(loadAccountConfig(), log));
}
