import type { Logger } from '@smsgw/platform';
import nodemailer from 'nodemailer';

export interface Mail {
  to: string;
  subject: string;
  text: string;
}

/** Sends the dashboard's e-mails (address verification, password reset). */
export interface Mailer {
  send(mail: Mail): Promise<void>;
}

/** An SMTP mailer, built once; without `smtpUrl` it sends nothing and says so in the log (never the mail: it holds a link). */
export function createMailer(options: { smtpUrl: string | undefined; from: string }, log: Logger): Mailer & { close(): void } {
  if (!options.smtpUrl) {
    log.warn('SMTP_URL is not set: verification and password reset e-mails are not sent');
    return {
      async send(mail) {
        log.warn({ subject: mail.subject }, 'e-mail not sent: no SMTP_URL');
      },
      close() {},
    };
  }
  const transport = nodemailer.createTransport(options.smtpUrl);
  return {
    async send(mail) {
      await transport.sendMail({ from: options.from, ...mail });
    },
    close() {
      transport.close();
    },
  };
}
