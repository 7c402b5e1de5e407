// The payer notification counters, with the worker, a real SMTP server and a chat provider stand-in on
// loopback: each message's final status by channel and kind, and each provider failure by class.
import { beforeAll, describe, expect, it } from "vitest";
import { providerError } from "../helpers/chat-provider.ts";
import { chargeBody } from "../helpers/charges.ts";
import { metricValue } from "../helpers/metrics.ts";
import { notifyingServiceForFile } from "../helpers/notifying-service.ts";
import { linkedMerchant } from "../helpers/service.ts";
import { uniqueRef } from "../helpers/unique-ref.ts";

const { service: t, smtp, provider } = notifyingServiceForFile({ start: new Date("2026-11-22T15:00:00Z") });

let merchant: Awaited<ReturnType<typeof linkedMerchant>>;
beforeAll(async () => {
  merchant = await linkedMerchant(t);
});

const messages = (channel: string, kind: string, status: string) => metricValue(t, "cobro_notifications_total", { channel, kind, status });
const providerErrors = (channel: string, errorClass: string) => metricValue(t, "cobro_notification_provider_errors_total", { channel, class: errorClass });

let phone = 20_000_000;
/** A charge whose initial email and chat message go out at once, to a payer of its own (or to `email`). */
async function notifiedCharge(email = `${uniqueRef("payer").toLowerCase()}@example.com`) {
  const number = `911${++phone}`;
  const created = await merchant.call(
    "POST",
    "/payment-request",
    chargeBody({
      sendEmailNotification: true,
      sendWhatsappNotification: true,
      customer: { name: "Ana López", email, phoneNumber: { countryCode: "+54", number } },
    }),
  );
  expect(created.status, created.text).toBe(201);
  return { email, chatTo: `54${number}` };
}

const chatsTo = (to: string) => provider.requests.filter((request) => request.json?.to === to);

describe("notification metrics", () => {
  it("the initial email and chat message sent count once each, by channel and kind", async () => {
    const before = { email: await messages("email", "initial", "sent"), chat: await messages("whatsapp", "initial", "sent") };
    const payer = await notifiedCharge();
    await smtp.waitFor(payer.email, 1);
    await expect.poll(() => messages("email", "initial", "sent")).toBe(before.email + 1);
    await expect.poll(() => messages("whatsapp", "initial", "sent")).toBe(before.chat + 1);
  });

  it("refusals for good count the message failed and a permanent provider error, on each channel", async () => {
    const before = {
      emailFailed: await messages("email", "initial", "failed"),
      chatFailed: await messages("whatsapp", "initial", "failed"),
      emailPermanent: await providerErrors("email", "permanent"),
      chatPermanent: await providerErrors("whatsapp", "permanent"),
    };
    provider.answerNext(providerError(400, "(#131026) Message undeliverable"));
    const email = `${uniqueRef("refused").toLowerCase()}@example.com`;
    smtp.refuse(email, { code: 550, message: "5.1.1 Mailbox does not exist" });
    await notifiedCharge(email);
    await expect.poll(() => messages("email", "initial", "failed"), { timeout: 10_000 }).toBe(before.emailFailed + 1);
    await expect.poll(() => messages("whatsapp", "initial", "failed"), { timeout: 10_000 }).toBe(before.chatFailed + 1);
    expect(await providerErrors("email", "permanent")).toBe(before.emailPermanent + 1);
    expect(await providerErrors("whatsapp", "permanent")).toBe(before.chatPermanent + 1);
  });

  it("a provider outage counts a temporary provider error per failed attempt, and the message once, when the retry sends it", async () => {
    const before = { temporary: await providerErrors("whatsapp", "temporary"), sent: await messages("whatsapp", "initial", "sent") };
    provider.answerNext(providerError(503, "Service temporarily unavailable"));
    const payer = await notifiedCharge();
    await expect.poll(() => providerErrors("whatsapp", "temporary"), { timeout: 10_000 }).toBe(before.temporary + 1);
    expect(await messages("whatsapp", "initial", "sent")).toBe(before.sent);
    // The queue retries the job after its backoff (a few seconds); the provider now takes it.
    await expect.poll(() => chatsTo(payer.chatTo).length, { timeout: 20_000 }).toBe(2);
    await expect.poll(() => messages("whatsapp", "initial", "sent")).toBe(before.sent + 1);
    expect(await providerErrors("whatsapp", "temporary")).toBe(before.temporary + 1);
  });
});
