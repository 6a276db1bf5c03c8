#!/usr/bin/env node
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { LogRing } from './log-ring';
import { AGENT_NAME, startAgent, type Agent } from './agent';
import { HELP } from './cli-help';
import { exitCodeFor, parseCli } from './cli-options';
import { UsageError } from './errors';

// Safety net only: nothing in the agent logs phone numbers, texts or secrets.
const REDACTED = [
  'to',
  'text',
  'token',
  'device_token',
  'device_password',
  'pairing_code',
  '*.to',
  '*.text',
  '*.token',
  '*.device_token',
  '*.device_password',
  '*.pairing_code',
];

/** How long a stop may take before the process exits anyway. */
const STOP_GRACE_MS = 10_000;

async function main(): Promise<number> {
  let command;
  try {
    command = await parseCli(process.argv.slice(2), {
      env: process.env,
      homeDir: os.homedir(),
      // dist/cli.js sits in <repo>/android-agent/dist.
      repoRoot: path.resolve(__dirname, '../..'),
    });
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`${AGENT_NAME}: ${error.message}\nRun with --help for the options.\n`);
    return 2;
  }
  if (command.kind === 'help') {
    process.stdout.write(HELP);
    return 0;
  }

  // Synchronous writes: the last lines before an exit are not lost. stdout is kept for --log-json.
  // The lines also go to the ring the hub may ask for (protocol 6), redacted there.
  const logRing = new LogRing();
  const logger = pino(
    { name: AGENT_NAME, level: process.env.LOG_LEVEL ?? 'info', redact: { paths: REDACTED, censor: '[redacted]' } },
    pino.multistream([
      { stream: pino.destination({ dest: 2, sync: true }), level: 'trace' },
      { stream: logRing.stream(), level: 'trace' },
    ]),
  );

  let agent: Agent;
  try {
    agent = await startAgent({ ...command.options, logger, logRing });
  } catch (error) {
    logger.fatal({ error: errorName(error) }, errorMessage(error));
    return exitCodeFor(error);
  }

  let signalled = false;
  const onSignal = (signal: NodeJS.Signals): void => {
    if (signalled) {
      // A second Ctrl-C: the user does not want to wait for the outbox flush.
      logger.warn({ signal }, 'stopping now');
      process.exit(130);
    }
    signalled = true;
    logger.info({ signal }, 'stopping');
    setTimeout(() => {
      logger.error('stop took too long; exiting');
      process.exit(1);
    }, STOP_GRACE_MS).unref();
    void agent.stop();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);

  try {
    await agent.done;
    return 0;
  } catch (error) {
    logger.fatal({ error: errorName(error) }, errorMessage(error));
    return exitCodeFor(error);
  }
}

function errorName(error: unknown): string {
  return error instanceof Error ? error.name : 'Error';
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

main().then(
  (code) => {
    process.exitCode = code;
    // Everything is closed by now; a handle left open by a library must not keep the agent alive.
    setTimeout(() => process.exit(code), 1_000).unref();
  },
  (error: unknown) => {
    process.stderr.write(`${AGENT_NAME}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
