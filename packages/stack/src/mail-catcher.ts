import fs from 'node:fs';
import path from 'node:path';
import { SMTPServer } from 'smtp-server';

export interface CaughtMail {
  from: string;
  to: string[];
  subject: string;
  /** The whole message as received (headers and body). */
  raw: string;
  /** Where it was saved, when the catcher keeps mails in a folder. */
  file?: string;
}

export interface MailCatcher {
  port: number;
  /** `smtp://127.0.0.1:<port>`: what a service's SMTP_URL should be. */
  url: string;
  mails: CaughtMail[];
  /** Resolves with the first mail (received before or after the call) that matches. */
  waitFor(match: (mail: CaughtMail) => boolean, timeoutMs?: number): Promise<CaughtMail>;
  stop(): Promise<void>;
}

/** The unfolded value of a header in a raw message. */
function header(raw: string, name: string): string {
  const head = raw.split(/\r?\n\r?\n/, 1)[0] ?? '';
  const match = new RegExp(`^${name}:[ \\t]*(.*(?:\\r?\\n[ \\t].*)*)`, 'im').exec(head);
  return match ? match[1]!.replace(/\r?\n[ \t]+/g, ' ').trim() : '';
}

/**
 * A real SMTP server that accepts every mail on 127.0.0.1 and keeps it: in
 * memory for tests, and as `.eml` files in `dir` for `make dev`, so that a
 * developer can read the alert e-mails the platform sends.
 */
export async function startMailCatcher(
  options: { port?: number; dir?: string; onMail?: (mail: CaughtMail) => void } = {},
): Promise<MailCatcher> {
  const mails: CaughtMail[] = [];
  const waiters: { match: (m: CaughtMail) => boolean; resolve: (m: CaughtMail) => void }[] = [];
  if (options.dir) fs.mkdirSync(options.dir, { recursive: true });
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        const mail: CaughtMail = {
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          subject: header(raw, 'Subject'),
          raw,
        };
        if (options.dir) {
          mail.file = path.join(options.dir, `${new Date().toISOString().replace(/[:.]/g, '-')}-${mails.length + 1}.eml`);
          fs.writeFileSync(mail.file, raw);
        }
        mails.push(mail);
        options.onMail?.(mail);
        for (const w of [...waiters]) {
          if (w.match(mail)) {
            waiters.splice(waiters.indexOf(w), 1);
            w.resolve(mail);
          }
        }
        callback();
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const port = (server.server.address() as { port: number }).port;
  return {
    port,
    url: `smtp://127.0.0.1:${port}`,
    mails,
    waitFor(match, timeoutMs = 30_000) {
      const found = mails.find(match);
      if (found) return Promise.resolve(found);
      return new Promise((resolve, reject) => {
        const waiter = {
          match,
          resolve: (m: CaughtMail) => {
            clearTimeout(timer);
            resolve(m);
          },
        };
        const timer = setTimeout(() => {
          waiters.splice(waiters.indexOf(waiter), 1);
          reject(new Error(`no matching mail within ${timeoutMs} ms (${mails.length} received)`));
        }, timeoutMs);
        waiters.push(waiter);
      });
    },
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
