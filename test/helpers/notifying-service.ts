// The service of this file that sends payer notifications (the three APIs and the worker) through a real
// SMTP server and a chat provider stand-in, both on loopback and started before it.
import { afterAll, beforeAll } from "vitest";
import { startChatProvider, type ChatProvider } from "./chat-provider.ts";
import { serviceForFile, startedHandle, type TestService } from "./service.ts";
import { startSmtpServer, type TestSmtpServer } from "./smtp-server.ts";

/** The sender of the payer emails in these services. */
export const MAIL_FROM = "Cobro <avisos@cobro.test>";

export function notifyingServiceForFile(options: { start?: Date } = {}): { service: TestService; smtp: TestSmtpServer; provider: ChatProvider } {
  let smtp: TestSmtpServer | undefined;
  let provider: ChatProvider | undefined;
  beforeAll(async () => {
    smtp = await startSmtpServer();
    provider = await startChatProvider();
  });
  afterAll(async () => {
    await smtp?.close();
    await provider?.close();
  });
  const service = serviceForFile(() => ({
    ...(options.start ? { start: options.start } : {}),
    env: { COBRO_SMTP_URL: smtp!.url, COBRO_MAIL_FROM: MAIL_FROM, ...provider!.env },
    parts: ["integration", "auth", "admin", "worker"],
  }));
  return {
    service,
    smtp: startedHandle("the SMTP server", "notifyingServiceForFile()", () => smtp),
    provider: startedHandle("the chat provider", "notifyingServiceForFile()", () => provider),
  };
}
