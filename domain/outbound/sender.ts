// How a message goes out, by email or by chat: each channel has one sender, built once per process from the
// operator's configuration (server/service.ts), and carries the content types below. A sender never throws
// for anything the provider does; it answers one of four outcomes, and its caller (the payer notifications'
// send use case, an account email) records or reports it.
import type { NotificationKind } from "../../db/tables/notifications.table.ts";

/** An email's content: a subject, and the same lines as text and as HTML. */
export interface EmailContent {
  subject: string;
  text: string;
  html: string;
}

/** A chat message's content: an approved template (by kind), its language and its body parameters. */
export interface ChatContent {
  kind: NotificationKind;
  languageCode: string;
  /** The template's body parameters, in order (see `chatParameters`). */
  parameters: string[];
}

/** A provider must answer within this time; past it, the attempt is a temporary failure. */
export const PROVIDER_TIMEOUT_MS = 10_000;

export interface EmailMessage extends EmailContent {
  /** The payer's address. */
  to: string;
}

export interface ChatMessage extends ChatContent {
  /** The payer's number: country code and number, digits only. */
  to: string;
  kind: NotificationKind;
}

export type SendResult =
  /** The provider took it; its id for the message. */
  | { outcome: "sent"; providerMessageId: string }
  /** Nothing went out: the Sandbox has no provider for this channel. */
  | { outcome: "simulated" }
  /** The provider refused it for good (an address or number it will not take): retrying cannot help. */
  | { outcome: "rejected"; reason: string }
  /** No answer, or an answer that says "later" (a timeout, a 5xx, a 4xx SMTP reply): worth another attempt. */
  | { outcome: "temporary_failure"; reason: string };

export interface Sender<Message> {
  send(message: Message): Promise<SendResult>;
  /** Closes its connections (the worker stops). */
  close(): Promise<void>;
}

export interface NotificationSenders {
  email: Sender<EmailMessage>;
  whatsapp: Sender<ChatMessage>;
}

/** A provider's words kept as a failure reason: one line, bounded (it lands in the outbox, never in a log). */
export function failureReason(text: string): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > 500 ? `${line.slice(0, 499)}…` : line;
}
