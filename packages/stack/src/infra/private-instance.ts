// A server process started and stopped by this package, and the one-shot commands (initdb, apt-get) run on the way.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { describe, InfraError, LOG_TAIL_LINES, READY_TIMEOUT_MS, STOP_TIMEOUT_MS, type InfraName } from './infra-service';

/** A server process this module started and is responsible for stopping. */
export class PrivateInstance {
  private exited = false;
  readonly exit: Promise<{ code: number | null; signal: NodeJS.Signals | null; error?: Error }>;

  constructor(
    readonly name: InfraName,
    readonly url: string,
    readonly child: ChildProcess,
    readonly logFile: string,
    /** The signal that makes this server shut down cleanly and quickly. */
    readonly stopSignal: NodeJS.Signals,
  ) {
    this.exit = new Promise((resolve) => {
      // A binary that cannot be executed reports 'error' and may never report 'exit'.
      child.once('error', (error) => {
        this.exited = true;
        resolve({ code: null, signal: null, error });
      });
      child.once('exit', (code, signal) => {
        this.exited = true;
        resolve({ code, signal });
      });
    });
  }

  get running(): boolean {
    return !this.exited;
  }

  /** Synchronous, so it can run from a process 'exit' handler. */
  signal(): void {
    if (this.running) this.child.kill(this.stopSignal);
  }

  async stop(): Promise<void> {
    if (!this.running) return;
    this.child.kill(this.stopSignal);
    if (await settlesWithin(this.exit, STOP_TIMEOUT_MS)) return;
    this.child.kill('SIGKILL');
    await this.exit;
  }
}

export interface RunOptions {
  logFile: string;
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  user?: { uid: number; gid: number };
  /** Added to a failure message whose output says "Permission denied". */
  hint: string;
}

function openLog(logFile: string, command: string, args: string[]): number {
  const fd = fs.openSync(logFile, 'a');
  fs.writeSync(fd, `\n--- ${new Date().toISOString()} ${command} ${args.join(' ')}\n`);
  return fd;
}

export function spawnLogged(
  name: InfraName,
  url: string,
  command: string,
  args: string[],
  options: Omit<RunOptions, 'hint'> & { stopSignal: NodeJS.Signals },
): PrivateInstance {
  const fd = openLog(options.logFile, command, args);
  try {
    const child = spawn(command, args, {
      cwd: options.cwd,
      env: options.env,
      stdio: ['ignore', fd, fd],
      ...(options.user ?? {}),
    });
    return new PrivateInstance(name, url, child, options.logFile, options.stopSignal);
  } finally {
    fs.closeSync(fd);
  }
}

/** Runs a one-shot command (initdb, apt-get) and fails with the end of its output. */
export async function runToCompletion(name: InfraName, command: string, args: string[], options: RunOptions): Promise<void> {
  const run = spawnLogged(name, '', command, args, { ...options, stopSignal: 'SIGTERM' });
  const { code, signal, error } = await run.exit;
  if (code === 0) return;
  const how = error ? describe(error) : signal ? `was killed by ${signal}` : `exited with code ${code}`;
  throw new InfraError(name, `${path.basename(command)} ${how}.${await failureOutput(options.logFile, options.hint)}`, { cause: error });
}

/** Polls until the server answers; fails early, with its last output, if it exits. */
export async function waitUntilReady(instance: PrivateInstance, probe: () => Promise<void>, hint: string): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  let lastError: unknown;
  while (Date.now() < deadline) {
    if (!instance.running) {
      const { code, signal, error } = await instance.exit;
      const how = error ? describe(error) : signal ? `was killed by ${signal}` : `exited with code ${code}`;
      throw new InfraError(
        instance.name,
        `the private ${instance.name} ${how} during start-up.${await failureOutput(instance.logFile, hint)}`,
        { cause: error },
      );
    }
    try {
      await probe();
      return;
    } catch (err) {
      lastError = err;
    }
    await Promise.race([delay(200), instance.exit]);
  }
  await instance.stop();
  throw new InfraError(
    instance.name,
    `the private ${instance.name} did not answer at ${instance.url} within ${READY_TIMEOUT_MS / 1000} s ` +
      `(${describe(lastError)}).${await failureOutput(instance.logFile, hint)}`,
    { cause: lastError },
  );
}

/** The end of a child's output, for an error message. */
export async function failureOutput(logFile: string, permissionHint: string): Promise<string> {
  let tail: string;
  try {
    const text = await fsp.readFile(logFile, 'utf8');
    tail = text
      .split('\n')
      .filter((line) => line.trim() !== '')
      .slice(-LOG_TAIL_LINES)
      .map((line) => `  ${line}`)
      .join('\n');
  } catch {
    tail = '  (no output)';
  }
  const hint = /permission denied/i.test(tail) ? permissionHint : '';
  return `${hint} Last lines of ${logFile}:\n${tail}`;
}

export function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Whether `promise` settles within `ms`; its outcome is ignored. */
export async function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const settled = promise.then(
    () => true,
    () => true,
  );
  const timedOut = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([settled, timedOut]);
  } finally {
    clearTimeout(timer);
  }
}
