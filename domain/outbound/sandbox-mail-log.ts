// The Sandbox's email to people (admins' welcomes) when no SMTP server is configured: the whole message
// goes to the log, marked as a Sandbox mail that was not sent, so that a newcomer can read it there. It
// carries a temporary password: this is acceptable only because a Sandbox has no real accounts, and
// server/service.ts never builds it in Production.
import type { EmailMessage, Sender, SendResult } from "./sender.ts";

/** The one thing it needs of a logger (pino's `info`). */
export interface MailLog {
  info(fields: Record<string, unknown>, message: string): void;
}

export const SANDBOX_MAIL_LOG_MESSAGE = "SANDBOX MAIL (not sent: no COBRO_SMTP_URL); its content follows";

export class SandboxMailLog implements Sender<EmailMessage> {
  readonly #log: MailLog;

  constructor(log: MailLog) {
    this.#log = log;
  }

  async send(message: EmailMessage): Promise<SendResult> {
    this.#log.info({ sandboxMail: { to: message.to, subject: message.subject, text: message.text } }, SANDBOX_MAIL_LOG_MESSAGE);
    return { outcome: "simulated" };
  }

  async close(): Promise<void> {}
}
