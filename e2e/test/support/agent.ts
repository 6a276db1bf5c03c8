import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';

export interface SentSms {
  message_id: string;
  to: string;
  text: string;
}

/**
 * The phone agent as a real process (`npm run agent`'s program), with the
 * simulator driver; `args` come from `simulatedPhoneArgs`. Its --log-json lines (one per SMS handed to the driver)
 * are collected; its logs go to a file.
 */
export class AgentProcess {
  readonly sent: SentSms[] = [];
  private child?: ChildProcess;
  private exited?: Promise<void>;

  constructor(
    private readonly args: string[],
    private readonly logFile: string,
  ) {}

  start(): this {
    fs.mkdirSync(path.dirname(this.logFile), { recursive: true });
    const log = fs.createWriteStream(this.logFile, { flags: 'a' });
    this.child = spawn(process.execPath, this.args, {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const child = this.child;
    this.exited = new Promise((resolve) => child.once('exit', () => resolve()));
    child.stderr!.pipe(log);
    readline.createInterface({ input: child.stdout! }).on('line', (line) => {
      try {
        this.sent.push(JSON.parse(line) as SentSms);
      } catch {
        log.write(`[stdout] ${line}\n`);
      }
    });
    return this;
  }

  /** Stops the agent: SIGTERM for a clean stop, SIGKILL for a crash. */
  async kill(signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
    if (!this.child || this.child.exitCode !== null || this.child.signalCode !== null) return;
    this.child.kill(signal);
    await this.exited;
  }

  /** True while the agent process has not exited. */
  get running(): boolean {
    return !!this.child && this.child.exitCode === null && this.child.signalCode === null;
  }

  sentCount(messageId: string): number {
    return this.sent.filter((s) => s.message_id === messageId).length;
  }

  logs(): string {
    return fs.existsSync(this.logFile) ? fs.readFileSync(this.logFile, 'utf8') : '';
  }
}
