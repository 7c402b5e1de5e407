// Sending payer notifications end to end: the whole service with its worker, a real SMTP server and a chat
// provider stand-in on loopback, charges created through the Integration API (with notifications off, so
// that each test writes and queues the messages it sends with the outbox's own primitives; the first test
// lets the charge's own schedule send its initial messages). Each message is sent once, recorded as sent / simulated /
// failed / canceled, retried after a temporary failure, and never lets a provider reach a log line.
import { runJobNow } from "../helpers/jobs.ts";
import { sql } from "kysely";
import { beforeAll, describe, expect, it } from "vitest";
import { sendNotificationJobKey } from "../../db/job-queue.ts";
import { CobroStartupError } from "../../db/errors.ts";
import type { NotificationChannel, NotificationKind } from "../../db/tables/notifications.table.ts";
import { argentinaDate } from "../../domain/argentina-time.ts";
import { integrationNow } from "../../domain/clock.ts";
import { SmtpEmailSender } from "../../domain/outbound/smtp-email-sender.ts";
import { WhatsappSender } from "../../domain/outbound/whatsapp-sender.ts";
import type { NotificationSenders } from "../../domain/outbound/sender.ts";
import { chatRecipient, queueNotifications, writeNotifications } from "../../domain/notifications/outbox.ts";
import { CLAIM_LEASE_MS, MAX_SEND_ATTEMPTS, sendNotification } from "../../domain/notifications/send.ts";
import { OutboundHttpClient } from "../../domain/outbound/http-client.ts";
import { startWorker } from "../../jobs/queue.ts";
import { createTaskList } from "../../jobs/tasks.ts";
import { loadConfig } from "../../runtime/config.ts";
import { startService } from "../../server/service.ts";
import { chargeBody } from "../helpers/charges.ts";
import { captureLogs } from "../helpers/captured-logs.ts";
import { CHAT_TOKEN, PHONE_NUMBER_ID, providerError, accepted } from "../helpers/chat-provider.ts";
import { startCobro } from "../../scripts/cobro-process.ts";
import { sandboxAdmin } from "../helpers/sandbox-admin.ts";
import { linkedMerchant, startTestService, TEST_SECRET_KEY, type TestService } from "../helpers/service.ts";
import { MAIL_FROM, notifyingServiceForFile } from "../helpers/notifying-service.ts";
import { uniqueRef } from "../helpers/unique-ref.ts";
import { createMetrics } from "../../runtime/metrics.ts";

const START = new Date("2026-11-22T15:00:00Z");
const { service: t, smtp, provider } = notifyingServiceForFile({ start: START });

let merchant: Awaited<ReturnType<typeof linkedMerchant>>;
beforeAll(async () => {
  merchant = await linkedMerchant(t);
});

let phoneSequence = 10_000_000;
/** Every payer of the file, so the log check covers the refusals and retries too. */
const createdCharges: CreatedCharge[] = [];

interface CreatedCharge {
  referenceId: string;
  chargeId: string;
  integrationClientId: string;
  cvu: string;
  email: string;
  chatNumber: string;
}

/** A charge created through the Integration API, with a payer of its own (email and phone); notifications off unless `overrides` turn them on. */
async function newCharge(service: TestService, m: typeof merchant, overrides: object = {}): Promise<CreatedCharge> {
  const email = `${uniqueRef("payer").toLowerCase()}@example.com`;
  const phoneNumber = { countryCode: "+54", number: `911${++phoneSequence}` };
  const created = await m.call(
    "POST",
    "/payment-request",
    // Notifications off unless asked: most tests here write the messages they send themselves.
    chargeBody({
      amount: 15000.5,
      description: "Cuota de diciembre",
      sendEmailNotification: false,
      sendWhatsappNotification: false,
      customer: { name: "María Gómez", email, phoneNumber },
      ...overrides,
    }),
  );
  expect(created.status, JSON.stringify(created.json)).toBe(201);
  const row = await service.database.db
    .selectFrom("charges")
    .select(["id", "integration_client_id"])
    .where("id", "=", created.json.paymentRequestId)
    .executeTakeFirstOrThrow();
  const charge = {
    referenceId: created.json.referenceId,
    chargeId: row.id,
    integrationClientId: row.integration_client_id,
    cvu: created.json.CVU,
    email,
    chatNumber: chatRecipient(phoneNumber),
  };
  createdCharges.push(charge);
  return charge;
}

interface MessageSpec {
  channel: NotificationChannel;
  kind?: NotificationKind;
  transferId?: string;
}

/** Writes the charge's messages for now and queues them, as the schedule does, in one transaction. */
async function queueMessages(service: TestService, charge: CreatedCharge, specs: MessageSpec[], options: { withJobs?: boolean } = {}): Promise<string[]> {
  const now = integrationNow(service.clock, 0);
  return service.database.db.transaction().execute(async (trx) => {
    const ids = await writeNotifications(
      trx,
      specs.map((spec) => ({
        chargeId: charge.chargeId,
        integrationClientId: charge.integrationClientId,
        channel: spec.channel,
        kind: spec.kind ?? "initial",
        day: argentinaDate(now),
        recipient: spec.channel === "email" ? charge.email : charge.chatNumber,
        scheduledFor: now,
        ...(spec.transferId ? { transferId: spec.transferId } : {}),
      })),
    );
    if (options.withJobs === false) await trx.updateTable("notifications").set({ status: "queued", queued_at: now }).where("id", "in", ids).execute();
    else await queueNotifications(trx, ids, now);
    return ids;
  });
}

function notification(service: TestService, id: string) {
  return service.database.db.selectFrom("notifications").selectAll().where("id", "=", id).executeTakeFirstOrThrow();
}

async function settled(service: TestService, id: string, status: string) {
  await expect.poll(async () => (await notification(service, id)).status, { timeout: 10_000, interval: 20 }).toBe(status);
  return notification(service, id);
}

/** The chat requests the stand-in got for a number. */
const chatRequestsTo = (to: string) => provider.requests.filter((request) => request.json?.to === to);

/** Senders of their own to the test's SMTP server and chat provider, as another worker process builds them. */
function providerSenders(): NotificationSenders {
  return {
    email: new SmtpEmailSender({ smtpUrl: smtp.url, from: MAIL_FROM }),
    whatsapp: new WhatsappSender({ apiUrl: provider.apiUrl, phoneNumberId: PHONE_NUMBER_ID, token: CHAT_TOKEN, templatePrefix: "cobro_" }),
  };
}

/** Makes a retry that the queue put off with its backoff due now (the worker polls every 2 s). */
const retryNow = (service: TestService, notificationId: string) => runJobNow(service.database.db, sendNotificationJobKey(notificationId));

describe("sending", () => {
  it("the initial email and chat message reach the payer with the amount, the CVU and the link, and are recorded as sent", async () => {
    // The charge's own schedule writes both initial messages and queues them as it is created.
    const charge = await newCharge(t, merchant, { sendEmailNotification: true, sendWhatsappNotification: true });
    const initial = await t.database.db
      .selectFrom("notifications")
      .select(["id", "channel"])
      .where("charge_id", "=", charge.chargeId)
      .where("kind", "=", "initial")
      .orderBy("channel")
      .execute();
    expect(initial.map((row) => row.channel)).toEqual(["email", "whatsapp"]);
    const [emailId, chatId] = initial.map((row) => row.id);

    const [mail] = await smtp.waitFor(charge.email);
    await expect.poll(() => chatRequestsTo(charge.chatNumber)).toHaveLength(1);
    const [chat] = chatRequestsTo(charge.chatNumber);
    const token = (await t.database.db.selectFrom("charges").select("payer_page_token").where("id", "=", charge.chargeId).executeTakeFirstOrThrow())
      .payer_page_token;
    const link = `${t.integrationUrl}/p/${token}`;

    expect(mail!.from).toBe("avisos@cobro.test");
    expect(mail!.subject).toMatch(/te envió un pedido de pago$/);
    for (const part of [mail!.text, mail!.html]) {
      expect(part).toContain("$ 15.000,50");
      expect(part).toContain(charge.cvu);
      expect(part).toContain("10/12/2026");
      expect(part).toContain("Cuota de diciembre");
      expect(part).toContain(link);
    }

    expect(chat!.headers.authorization).toBe(`Bearer ${CHAT_TOKEN}`);
    expect(chat!.path).toBe(`/v21.0/${PHONE_NUMBER_ID}/messages`);
    expect(chat!.json.template.name).toBe("cobro_initial");
    expect(chat!.json.template.language).toEqual({ code: "es_AR" });
    expect(chat!.json.template.components[0].parameters.map((parameter: { text: string }) => parameter.text)).toEqual([
      expect.any(String),
      "$ 15.000,50",
      charge.cvu,
      "10/12/2026",
      link,
    ]);

    const email = await settled(t, emailId!, "sent");
    expect(email).toMatchObject({ attempts: 1, failure_reason: null, provider_message_id: mail!.headers.get("message-id"), sent_at: expect.any(Date) });
    const whatsapp = await settled(t, chatId!, "sent");
    expect(whatsapp).toMatchObject({ attempts: 1, failure_reason: null, provider_message_id: expect.stringMatching(/^wamid\./) });
  });

  it("a number the provider refuses (4xx) is failed with its reason, and an address the SMTP server refuses (550) too", async () => {
    const charge = await newCharge(t, merchant);
    smtp.refuse(charge.email, { code: 550, message: "5.1.1 No such user here" });
    provider.answerNext(providerError(400, "(#131026) Message undeliverable"));
    const [emailId, chatId] = await queueMessages(t, charge, [{ channel: "email" }, { channel: "whatsapp" }]);

    expect(await settled(t, emailId!, "failed")).toMatchObject({
      attempts: 1,
      failure_reason: "550 5.1.1 No such user here",
      sent_at: null,
      provider_message_id: null,
    });
    expect(await settled(t, chatId!, "failed")).toMatchObject({ attempts: 1, failure_reason: "(#131026) Message undeliverable", sent_at: null });
    expect(smtp.to(charge.email)).toEqual([]);
    expect(chatRequestsTo(charge.chatNumber)).toHaveLength(1); // refused once, never tried again
    // The charge is untouched and still answers.
    expect((await merchant.call("GET", `/payment-request/${charge.referenceId}`)).json.state).toBe("pending");
  });

  it("a 5xx is retried with backoff and then sent; the reason of the failed attempt is kept meanwhile", async () => {
    const charge = await newCharge(t, merchant);
    provider.answerNext(providerError(503, "Service temporarily unavailable"));
    const [chatId] = await queueMessages(t, charge, [{ channel: "whatsapp" }]);

    // The attempt is counted when the message is claimed; its outcome is recorded once the provider answered.
    await expect.poll(async () => (await notification(t, chatId!)).failure_reason, { timeout: 10_000, interval: 20 }).not.toBeNull();
    const waiting = await notification(t, chatId!);
    expect(waiting).toMatchObject({ status: "queued", attempts: 1, failure_reason: "the chat provider answered 503: Service temporarily unavailable" });
    // The queue puts the job off with its backoff (just after the task's failure is recorded).
    const job = async () =>
      (
        await sql<{
          run_at: Date;
          attempts: number;
          locked_at: Date | null;
        }>`select run_at, attempts, locked_at from graphile_worker._private_jobs where key = ${sendNotificationJobKey(chatId!)}`.execute(t.database.db)
      ).rows[0];
    await expect.poll(async () => (await job())?.locked_at, { timeout: 10_000, interval: 20 }).toBeNull();
    const putOff = await job();
    expect(putOff!.attempts).toBe(1);
    expect(putOff!.run_at.getTime()).toBeGreaterThan(Date.now());

    await retryNow(t, chatId!);
    expect(await settled(t, chatId!, "sent")).toMatchObject({ attempts: 2, failure_reason: null, provider_message_id: expect.stringMatching(/^wamid\./) });
    expect(chatRequestsTo(charge.chatNumber)).toHaveLength(2);
  });

  it("a temporary failure at the last attempt is failed with that reason", async () => {
    const charge = await newCharge(t, merchant);
    const [chatId] = await queueMessages(t, charge, [{ channel: "whatsapp" }], { withJobs: false });
    await t.database.db
      .updateTable("notifications")
      .set({ attempts: MAX_SEND_ATTEMPTS - 1 })
      .where("id", "=", chatId!)
      .execute();
    provider.answerNext(providerError(500, "An unknown error occurred"));
    await addSendJob(chatId!);
    expect(await settled(t, chatId!, "failed")).toMatchObject({
      attempts: MAX_SEND_ATTEMPTS,
      failure_reason: "the chat provider answered 500: An unknown error occurred",
    });
  });

  it("a reminder of a charge canceled meanwhile is canceled, not sent; a payment confirmation goes out although the charge is paid", async () => {
    const canceledCharge = await newCharge(t, merchant);
    expect((await merchant.call("POST", `/payment-request/${canceledCharge.referenceId}/cancel`)).status).toBe(200);
    const [reminderId] = await queueMessages(t, canceledCharge, [{ channel: "email", kind: "advance_reminder" }]);
    expect(await settled(t, reminderId!, "canceled")).toMatchObject({ attempts: 0, sent_at: null });
    expect(smtp.to(canceledCharge.email)).toEqual([]);

    const paidCharge = await newCharge(t, merchant);
    const admin = await sandboxAdmin(t, merchant.sandbox);
    expect((await admin.simulate({ cvu: paidCharge.cvu, amount: 15000.5 })).json).toMatchObject({ conciliated: true });
    const transfer = await t.database.db.selectFrom("transfers").select("id").where("charge_id", "=", paidCharge.chargeId).executeTakeFirstOrThrow();
    const [confirmationId, dueDateId] = await queueMessages(t, paidCharge, [
      { channel: "whatsapp", kind: "payment_confirmation", transferId: transfer.id },
      { channel: "whatsapp", kind: "due_date" },
    ]);
    expect(await settled(t, confirmationId!, "sent")).toMatchObject({ attempts: 1 });
    expect(await settled(t, dueDateId!, "canceled")).toMatchObject({ attempts: 0 });
    const [confirmation] = chatRequestsTo(paidCharge.chatNumber);
    expect(chatRequestsTo(paidCharge.chatNumber)).toHaveLength(1);
    expect(confirmation!.json.template.name).toBe("cobro_payment_confirmation");
    const parameters = confirmation!.json.template.components[0].parameters.map((parameter: { text: string }) => parameter.text);
    expect(parameters[1]).toBe("$ 15.000,50"); // received
    expect(parameters[5]).toBe("$ 0,00"); // left to pay
  });

  it("two workers send each message once", async () => {
    const webhookHttp = new OutboundHttpClient({ allowLoopback: true });
    const notificationSenders = providerSenders();
    const second = await startWorker({
      connectionString: t.database.connectionString,
      concurrency: 4,
      taskList: createTaskList({
        metrics: createMetrics("worker"),
        db: t.database.db,
        clock: t.clock,
        serviceEnv: "sandbox",
        draftLifetimeHours: 6,
        webhookHttp,
        notificationSendsPerSecond: { email: 20, whatsapp: 80 },
        notificationSenders,
        integrationPublicUrl: t.integrationUrl,
      }),
    });
    try {
      const charges = await Promise.all(Array.from({ length: 12 }, () => newCharge(t, merchant)));
      const ids = (await Promise.all(charges.map((charge) => queueMessages(t, charge, [{ channel: "email" }, { channel: "whatsapp" }])))).flat();
      for (const id of ids) await settled(t, id, "sent");
      for (const charge of charges) {
        expect(smtp.to(charge.email)).toHaveLength(1);
        expect(chatRequestsTo(charge.chatNumber)).toHaveLength(1);
      }
    } finally {
      await second.stop();
      await Promise.all([webhookHttp.close(), notificationSenders.email.close(), notificationSenders.whatsapp.close()]);
    }
  });

  it("the same message claimed twice at once is sent once: the second finds it locked, then sent", async () => {
    const charge = await newCharge(t, merchant);
    const [chatId] = await queueMessages(t, charge, [{ channel: "whatsapp" }], { withJobs: false });
    provider.answerNext({ ...accepted(), delayMs: 300 });
    const deps = { db: t.database.db, clock: t.clock, senders: providerSenders(), integrationPublicUrl: t.integrationUrl };
    try {
      const first = sendNotification(deps, chatId!);
      await expect.poll(() => chatRequestsTo(charge.chatNumber).length).toBe(1); // the first has claimed it and is mid-call
      const second = await sendNotification(deps, chatId!);
      expect(second).toEqual({ kind: "not_claimed" });
      expect(await first).toEqual({ kind: "sent", attempt: 1, message: { channel: "whatsapp", kind: "initial" } });
      expect(await sendNotification(deps, chatId!)).toEqual({ kind: "settled", status: "sent" });
      expect(chatRequestsTo(charge.chatNumber)).toHaveLength(1);
    } finally {
      await Promise.all([deps.senders.email.close(), deps.senders.whatsapp.close()]);
    }
  });

  it("a cancel while the initial messages are at the providers answers at once; what is on its way finishes, the rest is withdrawn", async () => {
    provider.answerNext({ ...accepted(), delayMs: 1500 });
    const charge = await newCharge(t, merchant, {
      sendEmailNotification: true,
      sendWhatsappNotification: true,
      dueDates: ["2026-12-10", "2026-12-20"],
      surcharge: { type: "fixed", value: 100 },
    });
    await expect.poll(() => chatRequestsTo(charge.chatNumber).length).toBe(1); // the chat message is mid-call
    const canceled = await merchant.call("POST", `/payment-request/${charge.referenceId}/cancel`);
    expect(canceled.status, JSON.stringify(canceled.json)).toBe(200);
    const rows = await t.database.db.selectFrom("notifications").select(["id", "kind", "channel"]).where("charge_id", "=", charge.chargeId).execute();
    const initialChat = rows.find((row) => row.kind === "initial" && row.channel === "whatsapp")!;
    expect(await settled(t, initialChat.id, "sent")).toMatchObject({ attempts: 1 });
    const reminders = rows.filter((row) => row.kind !== "initial");
    expect(reminders.length).toBeGreaterThan(0);
    for (const reminder of reminders) expect((await notification(t, reminder.id)).status).toBe("canceled");
  });

  it("a message whose sender died mid-call is claimed again once the claim's lease ran out, and not before", async () => {
    const charge = await newCharge(t, merchant);
    const [chatId] = await queueMessages(t, charge, [{ channel: "whatsapp" }], { withJobs: false });
    const claimedAt = t.clock.now();
    await t.database.db.updateTable("notifications").set({ status: "sending", claimed_at: claimedAt, attempts: 1 }).where("id", "=", chatId!).execute();
    const deps = { db: t.database.db, clock: t.clock, senders: providerSenders(), integrationPublicUrl: t.integrationUrl };
    try {
      expect(await sendNotification(deps, chatId!)).toEqual({ kind: "not_claimed" });
      t.clock.advance(CLAIM_LEASE_MS);
      expect(await sendNotification(deps, chatId!)).toEqual({ kind: "sent", attempt: 2, message: { channel: "whatsapp", kind: "initial" } });
      expect(chatRequestsTo(charge.chatNumber)).toHaveLength(1);
    } finally {
      await Promise.all([deps.senders.email.close(), deps.senders.whatsapp.close()]);
    }
  });

  it("logs carry the message's id and outcome, never an address, a number, a CVU, the content or a credential (after every test above)", async () => {
    const charge = await newCharge(t, merchant);
    const [emailId, chatId] = await queueMessages(t, charge, [{ channel: "email" }, { channel: "whatsapp" }]);
    await settled(t, emailId!, "sent");
    await settled(t, chatId!, "sent");
    const logs = JSON.stringify(t.logLines);
    expect(logs).toContain(`notification ${emailId}: sent at attempt 1`);
    expect(logs).toContain(`notification ${chatId}: sent at attempt 1`);
    expect(logs).toMatch(/notification [0-9a-f-]{36}: failed at attempt 1 \(refused by the provider\)/);
    expect(logs).toMatch(/notification [0-9a-f-]{36}: temporary failure at attempt 1 of 10, retried later/);
    for (const secret of [CHAT_TOKEN, "smtp-test-password", "María Gómez", "Cuota de diciembre", "15.000,50", "No such user here", "Message undeliverable"])
      expect(logs).not.toContain(secret);
    for (const payer of createdCharges) for (const value of [payer.email, payer.chatNumber, payer.cvu]) expect(logs).not.toContain(value);
  });
});

/** Adds the send job of a message already queued (the test queued it without one). */
async function addSendJob(notificationId: string): Promise<void> {
  await sql`select graphile_worker.add_job('send-notification', json_build_object('notificationId', ${notificationId}::text), job_key => ${sendNotificationJobKey(notificationId)})`.execute(
    t.database.db,
  );
}

describe("without providers", () => {
  it("the Sandbox renders and records every message as simulated, and sends nothing", async () => {
    const sandbox = await startTestService({ start: START, parts: ["integration", "auth", "admin", "worker"] });
    try {
      const m = await linkedMerchant(sandbox);
      const charge = await newCharge(sandbox, m);
      const before = { mails: smtp.mails.length, chats: provider.requests.length };
      const [emailId, chatId] = await queueMessages(sandbox, charge, [{ channel: "email" }, { channel: "whatsapp" }]);
      for (const id of [emailId!, chatId!]) {
        expect(await settled(sandbox, id, "simulated")).toMatchObject({
          attempts: 1,
          sent_at: expect.any(Date),
          provider_message_id: null,
          failure_reason: null,
        });
      }
      expect({ mails: smtp.mails.length, chats: provider.requests.length }).toEqual(before);
      expect(JSON.stringify(sandbox.logLines)).toContain(
        "no email and chat provider: those payer notifications are rendered and recorded as simulated, and not sent",
      );
    } finally {
      await sandbox.close();
    }
  });

  it("a Production worker refuses to start, naming what is missing", async () => {
    const { logger } = captureLogs();
    const production = (env: Record<string, string>) => startService(loadConfig({ SERVICE_ENV: "production", ...env }, ["--only", "worker"]), { logger });
    await expect(production({})).rejects.toThrow(CobroStartupError);
    await expect(production({})).rejects.toThrow(
      "The worker sends payer notifications, and this Production process has no email provider (COBRO_SMTP_URL, COBRO_MAIL_FROM) and no chat provider (COBRO_WHATSAPP_API_URL, COBRO_WHATSAPP_PHONE_NUMBER_ID, COBRO_WHATSAPP_TOKEN): set them, or run the process without the worker (--only integration,auth,admin)",
    );
    await expect(production({ COBRO_SMTP_URL: smtp.url, COBRO_MAIL_FROM: MAIL_FROM })).rejects.toThrow(
      /has no chat provider \(COBRO_WHATSAPP_API_URL, .*\): set it,/,
    );
  });

  it("a Production worker with both providers starts", async () => {
    const production = await startTestService({
      env: { SERVICE_ENV: "production", COBRO_SMTP_URL: smtp.url, COBRO_MAIL_FROM: MAIL_FROM, ...provider.env },
      parts: ["worker"],
    });
    await production.close();
  });

  it("as a process, in one readable line and a non-zero exit", async () => {
    const started = startCobro({ SERVICE_ENV: "production", COBRO_SECRET_KEY: TEST_SECRET_KEY, COBRO_DATA_DIR: "/nonexistent/never-created" }, [
      "--only",
      "worker",
    ]);
    expect(await started.exited).toBe(2);
    expect(started.output()).toBe(
      "cobro: configuration error\n  - The worker sends payer notifications, and this Production process has no email provider (COBRO_SMTP_URL, COBRO_MAIL_FROM) and no chat provider (COBRO_WHATSAPP_API_URL, COBRO_WHATSAPP_PHONE_NUMBER_ID, COBRO_WHATSAPP_TOKEN): set them, or run the process without the worker (--only integration,auth,admin)\n",
    );
  });

  it("as a process, with every other missing Production setting in the same answer, before any database is touched", async () => {
    const started = startCobro({ SERVICE_ENV: "production", COBRO_SECRET_KEY: "", COBRO_DATA_DIR: "/nonexistent/never-created" });
    expect(await started.exited).toBe(2);
    const lines = started.output().trimEnd().split("\n");
    expect(lines[0]).toBe("cobro: configuration error");
    expect(lines).toHaveLength(3);
    expect(lines[1]).toMatch(/^ {2}- COBRO_SECRET_KEY is required in Production /);
    expect(lines[2]).toMatch(/^ {2}- The worker sends payer notifications, and this Production process has no email provider /);
  });
});
