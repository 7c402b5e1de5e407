// Email over SMTP with nodemailer: a pool of connections to the operator's server (COBRO_SMTP_URL, its
// credentials in the URL), each message from COBRO_MAIL_FROM with a text and an HTML part.
//
// What the server answers decides the outcome: a 5xx reply to the recipient or to the message is a
// refusal for good (its words become the failure reason); a 4xx reply ("try later"), a connection that
// fails, times out or is refused credentials is temporary, and the message is tried again.
import nodemailer, { type NodemailerError, type Transporter } from "nodemailer";
import { failureReason, PROVIDER_TIMEOUT_MS, type EmailMessage, type Sender, type SendResult } from "./sender.ts";

export interface SmtpSenderOptions {
  /** `smtp://` or `smtps://`, credentials in the URL. */
  smtpUrl: string;
  /** The From header (`Cobro <avisos@example.com>`). */
  from: string;
  /** Connecting, the greeting and each reply (default PROVIDER_TIMEOUT_MS). */
  timeoutMs?: number;
}

export class SmtpEmailSender implements Sender<EmailMessage> {
  readonly #transport: Transporter;
  readonly #from: string;

  constructor(options: SmtpSenderOptions) {
    const timeoutMs = options.timeoutMs ?? PROVIDER_TIMEOUT_MS;
    this.#from = options.from;
    // Connections are opened on the first message, not here: a server that is down fails messages
    // (temporarily), never the worker's start.
    this.#transport = nodemailer.createTransport({
      url: options.smtpUrl,
      pool: true,
      connectionTimeout: timeoutMs,
      greetingTimeout: timeoutMs,
      socketTimeout: timeoutMs,
      // Nothing of a message (addresses, content) reaches a log.
      logger: false,
      debug: false,
    });
  }

  async send(message: EmailMessage): Promise<SendResult> {
    try {
      const info = await this.#transport.sendMail({ from: this.#from, to: message.to, subject: message.subject, text: message.text, html: message.html });
      return { outcome: "sent", providerMessageId: info.messageId };
    } catch (error) {
      return smtpFailure(error as NodemailerError);
    }
  }

  async close(): Promise<void> {
    this.#transport.close();
  }
}

function smtpFailure(error: NodemailerError): SendResult {
  const reply = error.response;
  // nodemailer judges the reply's class: `permanent` for a 5xx (but 503, a command out of order).
  if (reply && error.permanent === true && (error.code === "EENVELOPE" || error.code === "EMESSAGE"))
    return { outcome: "rejected", reason: failureReason(reply) };
  switch (error.code) {
    case "ETIMEDOUT":
      return { outcome: "temporary_failure", reason: "the SMTP server did not answer in time" };
    case "EAUTH":
    case "ENOAUTH":
      return { outcome: "temporary_failure", reason: "the SMTP server refused Cobro's credentials (COBRO_SMTP_URL)" };
    default:
      return {
        outcome: "temporary_failure",
        reason: failureReason(
          reply ? `the SMTP server answered: ${reply}` : `could not reach the SMTP server (${error.originalCode ?? error.code ?? "unknown error"})`,
        ),
      };
  }
}
