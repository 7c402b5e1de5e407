// A charge's payer notifications from creation to payment, as an integrator and a payer see them: a
// Sandbox with a real SMTP server and a chat provider stand-in on loopback, the charge created through the
// Integration API, time moved with the Sandbox clock, payments simulated, and the Admin API's outbox.
import { beforeAll, expect, it } from "vitest";
import { chargeBody } from "../helpers/charges.ts";
import { sandboxAdmin, type SandboxAdmin } from "../helpers/sandbox-admin.ts";
import { notifyingServiceForFile } from "../helpers/notifying-service.ts";
import { linkedMerchant } from "../helpers/service.ts";

// 12:00 in Argentina.
const START = new Date("2026-11-22T15:00:00Z");
const EMAIL = "ana.lopez@example.com";
const CHAT_NUMBER = "5491155550001";

const { service: t, smtp, provider } = notifyingServiceForFile({ start: START });

let merchant: Awaited<ReturnType<typeof linkedMerchant>>;
let admin: SandboxAdmin;
beforeAll(async () => {
  merchant = await linkedMerchant(t);
  admin = await sandboxAdmin(t, merchant.sandbox);
});

/** The chat messages the provider got for the payer: template name and body parameters. */
const chats = () =>
  provider.requests
    .filter((request) => request.json?.to === CHAT_NUMBER)
    .map((request) => ({
      template: request.json.template.name as string,
      parameters: request.json.template.components[0].parameters.map((parameter: { text: string }) => parameter.text) as string[],
    }));

async function chatCount(count: number) {
  await expect.poll(() => chats().length, { timeout: 10_000 }).toBe(count);
  return chats();
}

it("sends the initial messages at once, the reminders at 10:00 as the clock moves, the confirmations of the payments, and lists it all", async () => {
  const created = await merchant.call(
    "POST",
    "/payment-request",
    chargeBody({
      referenceId: "E2E-NOTIFY-0001",
      amount: 15000.5,
      description: "Cuota de diciembre",
      dueDates: ["2026-11-26", "2026-11-28"],
      surcharge: { type: "fixed", value: 500 },
      sendEmailNotification: true,
      sendWhatsappNotification: true,
      customer: { name: "Ana López", email: EMAIL, phoneNumber: { countryCode: "+54", number: "91155550001" } },
    }),
  );
  expect(created.status, JSON.stringify(created.json)).toBe(201);
  const cvu = created.json.CVU as string;

  // On creation: the initial email and chat message, with the CVU and the first due date's amount.
  const [initialMail] = await smtp.waitFor(EMAIL, 1);
  expect(initialMail!.text).toContain(cvu);
  expect(initialMail!.text).toContain("$ 15.000,50");
  expect((await chatCount(1))[0]).toMatchObject({
    template: "cobro_initial",
    parameters: [expect.any(String), "$ 15.000,50", cvu, "26/11/2026", expect.stringContaining("/p/")],
  });

  // Nothing more until 10:00 the day before the first due date: a minute before, the reminders still wait.
  expect((await admin.advanceClock({ advanceTo: "2026-11-25T12:59:00Z" })).status).toBe(200);
  const waiting = (await admin.call("GET", "/my-integration/notifications?referenceId=E2E-NOTIFY-0001&status=scheduled&limit=100")).json.items;
  const reminders = waiting
    .filter((item: { kind: string }) => item.kind === "advance_reminder")
    .map((item: { channel: string; scheduledFor: string }) => `${item.channel} ${item.scheduledFor}`);
  expect(reminders.sort()).toEqual(["email 2026-11-25T13:00:00.000Z", "whatsapp 2026-11-25T13:00:00.000Z"]);
  expect((await admin.advanceClock({ advanceTo: "2026-11-25T13:00:00Z" })).status).toBe(200);
  await smtp.waitFor(EMAIL, 2);
  expect((await chatCount(2))[1]).toMatchObject({
    template: "cobro_advance_reminder",
    parameters: [expect.any(String), "$ 15.000,50", cvu, "26/11/2026", expect.any(String)],
  });

  // A partial payment: confirmed by chat (CVU mode, flag omitted), showing what came in and what is left.
  expect((await admin.simulate({ cvu, amount: 5000 })).json).toMatchObject({ conciliated: true });
  expect((await chatCount(3))[2]).toMatchObject({
    template: "cobro_payment_confirmation",
    parameters: [expect.any(String), "$ 5.000,00", cvu, expect.any(String), expect.any(String), "$ 10.000,50"],
  });

  // The due date: the balance. The day after it: the balance with the surcharge.
  await admin.advanceClock({ advanceTo: "2026-11-26T13:00:00Z" });
  await smtp.waitFor(EMAIL, 3);
  expect((await chatCount(4))[3]).toMatchObject({
    template: "cobro_due_date",
    parameters: [expect.any(String), "$ 10.000,50", cvu, "26/11/2026", expect.any(String)],
  });
  await admin.advanceClock({ advanceTo: "2026-11-27T13:00:00Z" });
  const mails = await smtp.waitFor(EMAIL, 4);
  expect(mails[3]!.text).toContain("$ 10.500,50");
  expect((await chatCount(5))[4]).toMatchObject({
    template: "cobro_first_due_date_passed",
    parameters: [expect.any(String), "$ 10.500,50", cvu, "28/11/2026", expect.any(String)],
  });

  // Paid in full: confirmed; the second due date's messages are withdrawn and never go out.
  expect((await admin.simulate({ cvu, amount: 10500.5 })).json).toMatchObject({ conciliated: true });
  expect((await chatCount(6))[5]).toMatchObject({
    template: "cobro_payment_confirmation",
    parameters: [expect.any(String), "$ 10.500,50", cvu, expect.any(String), expect.any(String), "$ 0,00"],
  });
  await admin.advanceClock({ advanceTo: "2026-11-28T13:00:00Z" });

  // The outbox, as the integrator reads it.
  const outbox = async () => (await admin.call("GET", "/my-integration/notifications?referenceId=E2E-NOTIFY-0001&limit=100")).json;
  await expect.poll(async () => (await outbox()).items.filter((item: { status: string }) => item.status === "scheduled").length, { timeout: 10_000 }).toBe(0);
  const listed = (await outbox()).items
    .map((item: { channel: string; kind: string; status: string; to: string }) => `${item.channel} ${item.kind} ${item.status} ${item.to}`)
    .sort();
  expect(listed).toEqual(
    [
      `email initial sent ${EMAIL}`,
      `email advance_reminder sent ${EMAIL}`,
      `email due_date sent ${EMAIL}`,
      `email first_due_date_passed sent ${EMAIL}`,
      `email second_due_date canceled ${EMAIL}`,
      `whatsapp initial sent +${CHAT_NUMBER}`,
      `whatsapp advance_reminder sent +${CHAT_NUMBER}`,
      `whatsapp due_date sent +${CHAT_NUMBER}`,
      `whatsapp first_due_date_passed sent +${CHAT_NUMBER}`,
      `whatsapp second_due_date canceled +${CHAT_NUMBER}`,
      `whatsapp payment_confirmation sent +${CHAT_NUMBER}`,
      `whatsapp payment_confirmation sent +${CHAT_NUMBER}`,
    ].sort(),
  );
  // And nothing else reached the payer.
  expect(smtp.to(EMAIL)).toHaveLength(4);
  expect(chats()).toHaveLength(6);
});
