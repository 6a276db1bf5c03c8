import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import { REPO_ROOT } from '@smsgw/stack';
import { eventually } from './http';

export type HarnessEvent = Record<string, unknown> & { event: string };

const JVM = path.join(REPO_ROOT, 'android-agent/android/jvm.sh');
let classpath: { cp: string; opts: string[] } | undefined;

/** Compiles the app's core and the harness once (jvm.sh installs the Debian packages it needs). */
function jvmClasspath(): { cp: string; opts: string[] } {
  classpath ??= {
    cp: execFileSync(JVM, ['classpath'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] }).trim(),
    opts: execFileSync(JVM, ['java-opts'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] })
      .trim()
      .split(' '),
  };
  return classpath;
}

/**
 * The Android app's core on the JVM (org.smsgw.agent.e2e.Harness): the real pairing, hub
 * connection and SQLite outbox, with a stand-in for SmsManager whose hand-overs come back as
 * `send` events and whose sent and delivery reports the test plays.
 */
export class JavaAgent {
  readonly events: HarnessEvent[] = [];
  private child?: ChildProcess;
  private exited?: Promise<void>;

  constructor(
    private readonly dataDir: string,
    private readonly caFile: string,
    private readonly logFile: string,
    private readonly bootId = 'boot-1',
  ) {}

  async start(): Promise<this> {
    const { cp, opts } = jvmClasspath();
    fs.mkdirSync(path.dirname(this.logFile), { recursive: true });
    const log = fs.createWriteStream(this.logFile, { flags: 'a' });
    const child = spawn(
      'java',
      [...opts, '-cp', cp, 'org.smsgw.agent.e2e.Harness', '--data', this.dataDir, '--ca', this.caFile, '--boot', this.bootId],
      {
        stdio: ['pipe', 'pipe', 'pipe'],
      },
    );
    this.child = child;
    this.exited = new Promise((resolve) => child.once('exit', () => resolve()));
    child.stderr.pipe(log);
    readline.createInterface({ input: child.stdout }).on('line', (line) => {
      log.write(`[event] ${line}\n`);
      try {
        this.events.push(JSON.parse(line) as HarnessEvent);
      } catch {
        // not an event
      }
    });
    await this.waitFor((e) => e.event === 'ready', 20_000);
    return this;
  }

  command(cmd: Record<string, unknown>): void {
    this.child!.stdin!.write(`${JSON.stringify(cmd)}\n`);
  }

  /** The first event since `from` (an index into `events`) that matches. */
  waitFor(match: (e: HarnessEvent) => boolean, timeoutMs = 20_000, from = 0, what = 'a harness event'): Promise<HarnessEvent> {
    return eventually(async () => this.events.slice(from).find(match), timeoutMs, what, 50);
  }

  /** How many times the stand-in SmsManager was given this SMS. */
  sendCount(messageId: string): number {
    return this.events.filter((e) => e.event === 'send' && e.message_id === messageId).length;
  }

  async pending(): Promise<string[]> {
    const from = this.events.length;
    this.command({ cmd: 'pending' });
    const e = await this.waitFor((ev) => ev.event === 'pending', 10_000, from);
    return e.reports as string[];
  }

  /** The received SMS the app still keeps (not yet answered `received_ack`), by received id. */
  async inbox(): Promise<string[]> {
    const from = this.events.length;
    this.command({ cmd: 'inbox' });
    const e = await this.waitFor((ev) => ev.event === 'inbox', 10_000, from);
    return e.received_ids as string[];
  }

  /** The outbox's state of an SMS, and whether its hand-over to Android is on disk. */
  async entry(messageId: string): Promise<{ state: string; handed_over: boolean }> {
    const from = this.events.length;
    this.command({ cmd: 'entry', message_id: messageId });
    const e = await this.waitFor((ev) => ev.event === 'entry' && ev.message_id === messageId, 10_000, from);
    return { state: String(e.state), handed_over: e.handed_over === true };
  }

  async kill(signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
    if (!this.child || this.child.exitCode !== null || this.child.signalCode !== null) return;
    this.child.kill(signal);
    await this.exited;
  }
}
