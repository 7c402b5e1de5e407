// The senders against real servers on loopback: email through a real SMTP server (smtp-server), chat
// through an HTTP stand-in for the WhatsApp Cloud API. What goes over the wire, and how each answer is
// judged: sent (with the provider's id), refused for good (with its reason), or worth another attempt.
import { createServer as createTcpServer, type Server as TcpServer } from "node:net";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SmtpEmailSender } from "../../domain/outbound/smtp-email-sender.ts";
import { WhatsappSender } from "../../domain/outbound/whatsapp-sender.ts";
import type { ChatMessage, EmailMessage } from "../../domain/outbound/sender.ts";
import { chatContent, emailContent, messageFacts } from "../../domain/notifications/content.ts";
import { accepted, CHAT_TOKEN, PHONE_NUMBER_ID, providerError, startChatProvider, type ChatProvider } from "../helpers/chat-provider.ts";
import { startSmtpServer, type TestSmtpServer } from "../helpers/smtp-server.ts";
import { uniqueRef } from "../helpers/unique-ref.ts";

const facts = messageFacts({
  kind: "initial",
  at: new Date("2026-11-22T13:00:00Z"),
  charge: {
    amount_cents: 1_500_050,
    surcharge_cents: 0,
    paid_cents: 0,
    first_due_at: new Date("2026-12-11T03:00:00Z"),
    due_dates: ["2026-12-10"],
    description: "Cuota de diciembre",
    customer_name: "María Gómez",
  },
  merchant: { fantasyName: "Gimnasio Sol", accountHolderName: "Sol Deportes SRL" },
  cvu: "0000003100000000000123",
  payerPageUrl: "http://localhost:3000/p/abc123",
});

const address = () => `${uniqueRef("payer").toLowerCase()}@example.com`;
const emailTo = (to: string): EmailMessage => ({ to, ...emailContent(facts) });
const chatTo = (to: string): ChatMessage => ({ to, ...chatContent(facts) });

/** A TCP server that accepts connections and never says a word: an SMTP server that hangs. */
async function silentServer(): Promise<{ port: number; server: TcpServer }> {
  const server = createTcpServer(() => {});
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { port: (server.address() as AddressInfo).port, server };
}

describe("email over SMTP", () => {
  let smtp: TestSmtpServer;
  let sender: SmtpEmailSender;

  beforeAll(async () => {
    smtp = await startSmtpServer();
    sender = new SmtpEmailSender({ smtpUrl: smtp.url, from: "Cobro <avisos@cobro.test>" });
  });
  afterAll(async () => {
    await sender?.close();
    await smtp?.close();
  });

  it("delivers a message with a text and an HTML part, the amount and the CVU, signed in with the URL's credentials", async () => {
    const to = address();
    const result = await sender.send(emailTo(to));
    expect(result).toEqual({ outcome: "sent", providerMessageId: expect.stringMatching(/^<.+@.+>$/) });
    const [mail] = await smtp.waitFor(to);
    expect(mail!.from).toBe("avisos@cobro.test");
    expect(mail!.headers.get("message-id")).toBe((result as { providerMessageId: string }).providerMessageId);
    expect(mail!.headers.get("content-type")).toMatch(/^multipart\/alternative/);
    expect(mail!.subject).toBe("Gimnasio Sol te envió un pedido de pago");
    for (const part of [mail!.text, mail!.html]) {
      expect(part).toContain("$ 15.000,50");
      expect(part).toContain("0000003100000000000123");
      expect(part).toContain("10/12/2026");
      expect(part).toContain("http://localhost:3000/p/abc123");
    }
    expect(mail!.text).toContain("Hola María Gómez:");
    expect(mail!.html).toContain("<p>Hola María Gómez:</p>");
  });

  it("a recipient the server refuses with a 5xx is refused for good, with the server's reply as the reason", async () => {
    const to = address();
    smtp.refuse(to, { code: 550, message: "5.1.1 Mailbox does not exist" });
    expect(await sender.send(emailTo(to))).toEqual({ outcome: "rejected", reason: "550 5.1.1 Mailbox does not exist" });
    expect(smtp.to(to)).toEqual([]);
  });

  it("a 4xx reply is temporary, and the next attempt goes through", async () => {
    const to = address();
    smtp.refuse(to, { code: 450, message: "4.2.1 Mailbox busy, try later", times: 1 });
    expect(await sender.send(emailTo(to))).toEqual({ outcome: "temporary_failure", reason: "the SMTP server answered: 450 4.2.1 Mailbox busy, try later" });
    expect(await sender.send(emailTo(to))).toMatchObject({ outcome: "sent" });
    expect(smtp.to(to)).toHaveLength(1);
  });

  it("wrong credentials, a closed port and a server that never answers are temporary", async () => {
    const wrongPassword = new SmtpEmailSender({ smtpUrl: smtp.url.replace("smtp-test-password", "wrong"), from: "avisos@cobro.test" });
    const closed = await silentServer();
    closed.server.close();
    const refused = new SmtpEmailSender({ smtpUrl: `smtp://127.0.0.1:${closed.port}`, from: "avisos@cobro.test" });
    const silent = await silentServer();
    const hanging = new SmtpEmailSender({ smtpUrl: `smtp://127.0.0.1:${silent.port}`, from: "avisos@cobro.test", timeoutMs: 300 });
    try {
      expect(await wrongPassword.send(emailTo(address()))).toEqual({
        outcome: "temporary_failure",
        reason: "the SMTP server refused Cobro's credentials (COBRO_SMTP_URL)",
      });
      expect(await refused.send(emailTo(address()))).toEqual({ outcome: "temporary_failure", reason: "could not reach the SMTP server (ECONNREFUSED)" });
      expect(await hanging.send(emailTo(address()))).toEqual({ outcome: "temporary_failure", reason: "the SMTP server did not answer in time" });
    } finally {
      await Promise.all([wrongPassword.close(), refused.close(), hanging.close()]);
      silent.server.close();
    }
  });
});

describe("chat through the WhatsApp Cloud API", () => {
  let provider: ChatProvider;
  let sender: WhatsappSender;

  beforeAll(async () => {
    provider = await startChatProvider();
    sender = new WhatsappSender({ apiUrl: provider.apiUrl, phoneNumberId: PHONE_NUMBER_ID, token: CHAT_TOKEN, templatePrefix: "cobro_" });
  });
  afterAll(async () => {
    await sender?.close();
    await provider?.close();
  });

  it("posts the template message with the bearer token, and takes messages[0].id as the message's id", async () => {
    const before = provider.requests.length;
    const result = await sender.send(chatTo("5491123456789"));
    expect(result).toEqual({ outcome: "sent", providerMessageId: expect.stringMatching(/^wamid\./) });
    const request = provider.requests[before]!;
    expect(request.method).toBe("POST");
    expect(request.path).toBe(`/v21.0/${PHONE_NUMBER_ID}/messages`);
    expect(request.headers.authorization).toBe(`Bearer ${CHAT_TOKEN}`);
    expect(request.headers["content-type"]).toBe("application/json");
    expect(request.json).toEqual({
      messaging_product: "whatsapp",
      to: "5491123456789",
      type: "template",
      template: {
        name: "cobro_initial",
        language: { code: "es_AR" },
        components: [
          {
            type: "body",
            parameters: [
              { type: "text", text: "Gimnasio Sol" },
              { type: "text", text: "$ 15.000,50" },
              { type: "text", text: "0000003100000000000123" },
              { type: "text", text: "10/12/2026" },
              { type: "text", text: "http://localhost:3000/p/abc123" },
            ],
          },
        ],
      },
    });
  });

  it("a 4xx is refused for good with the provider's error message; the token is never part of it", async () => {
    provider.answerNext(providerError(400, "(#131026) Message undeliverable"));
    const result = await sender.send(chatTo("5491100000000"));
    expect(result).toEqual({ outcome: "rejected", reason: "(#131026) Message undeliverable" });
    provider.answerNext({ status: 401, body: "not json" });
    expect(await sender.send(chatTo("5491100000000"))).toEqual({ outcome: "rejected", reason: "the chat provider answered 401" });
    expect(JSON.stringify(result)).not.toContain(CHAT_TOKEN);
  });

  it("a 5xx, a 429 and a timeout are temporary", async () => {
    provider.answerNext(providerError(500, "An unknown error occurred"), providerError(429, "(#130429) Rate limit hit"));
    expect(await sender.send(chatTo("5491100000001"))).toEqual({
      outcome: "temporary_failure",
      reason: "the chat provider answered 500: An unknown error occurred",
    });
    expect(await sender.send(chatTo("5491100000001"))).toEqual({
      outcome: "temporary_failure",
      reason: "the chat provider answered 429: (#130429) Rate limit hit",
    });
    const impatient = new WhatsappSender({
      apiUrl: provider.apiUrl,
      phoneNumberId: PHONE_NUMBER_ID,
      token: CHAT_TOKEN,
      templatePrefix: "cobro_",
      timeoutMs: 200,
    });
    provider.answerNext({ ...accepted(), delayMs: 1000 });
    try {
      expect(await impatient.send(chatTo("5491100000001"))).toEqual({ outcome: "temporary_failure", reason: "the chat provider did not answer within 200 ms" });
    } finally {
      await impatient.close();
    }
  });

  it("never follows a redirect, and a 2xx without a message id is not taken for sent", async () => {
    const before = provider.requests.length;
    provider.answerNext(
      { status: 307, headers: { location: provider.url("/elsewhere") } },
      { status: 200, headers: { "content-type": "application/json" }, body: "{}" },
    );
    expect(await sender.send(chatTo("5491100000002"))).toEqual({
      outcome: "rejected",
      reason: "the chat provider answered 307: redirects are not followed (check COBRO_WHATSAPP_API_URL)",
    });
    expect(provider.at("/elsewhere")).toEqual([]);
    expect(await sender.send(chatTo("5491100000002"))).toEqual({ outcome: "rejected", reason: "the chat provider answered 200 without a message id" });
    expect(provider.requests.length - before).toBe(2);
  });

  it("a provider that cannot be reached is temporary", async () => {
    const closed = await silentServer();
    closed.server.close();
    const unreachable = new WhatsappSender({
      apiUrl: `http://127.0.0.1:${closed.port}/v21.0`,
      phoneNumberId: PHONE_NUMBER_ID,
      token: CHAT_TOKEN,
      templatePrefix: "cobro_",
    });
    try {
      expect(await unreachable.send(chatTo("5491100000003"))).toEqual({
        outcome: "temporary_failure",
        reason: "could not reach the chat provider (ECONNREFUSED)",
      });
    } finally {
      await unreachable.close();
    }
  });
});
