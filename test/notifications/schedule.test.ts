// Payer notifications: which messages a charge gets and when they are queued, driven by the Sandbox clock
// through the Admin API. Every row of the schedule, drafts, withdrawal on full payment, cancel and
// closing, the balance kept after a partial payment, the payment-confirmation matrix, bulk flags, new
// recipients, the sweep's pace per channel, and one send job per message however often the sweep runs.
// No worker runs here: a queued message stays `queued` with its send job waiting.
import { sql } from "kysely";
import { describe, expect, it } from "vitest";
import { queueDueNotifications } from "../../domain/notifications/due-sweep.ts";
import { writeNotifications } from "../../domain/notifications/outbox.ts";
import { cuilCandidatesOfDni } from "../../domain/tax-id.ts";
import { chargeBody, draftChargeBody } from "../helpers/charges.ts";
import { sandboxIntegration } from "../helpers/sandbox-admin.ts";
import { serviceForFile } from "../helpers/service.ts";

// 12:00 Argentina time on 2026-11-22. Providers take 1 email and 2 chat messages a second, so the pace
// of the send jobs reads in whole and half seconds.
const t = serviceForFile({ start: new Date("2026-11-22T15:00:00Z"), env: { COBRO_EMAIL_SENDS_PER_SECOND: "1", COBRO_WHATSAPP_SENDS_PER_SECOND: "2" } });

const EMAIL = "juan@example.com";
const PHONE = { countryCode: "+54", number: "91123456789" };
const CHAT = "5491123456789";

/** A charge of $1000 due 2026-12-10 whose payer hears by email and chat. */
const notified = (extra: object = {}) =>
  chargeBody({ sendEmailNotification: true, sendWhatsappNotification: true, customer: { name: "Juan Pérez", email: EMAIL, phoneNumber: PHONE }, ...extra });

/** The same in CUIL mode, for the payer 20301234563 (the simulated transfers' default sender). */
const notifiedCuil = (extra: object = {}) =>
  notified({ conciliationType: "cuil", customer: { name: "Juan Pérez", taxDocument: "20301234563", email: EMAIL, phoneNumber: PHONE }, ...extra });

/** A fresh integration (its own Sandbox clock), its merchant and its admin. */
async function setup() {
  const { merchant: m, admin, createCharge: create } = await sandboxIntegration(t);
  const advanceTo = async (instant: string) => {
    const moved = await admin.advanceClock({ advanceTo: instant });
    expect(moved.status, JSON.stringify(moved.json)).toBe(200);
  };
  const pay = async (cvu: string, amount: number) => {
    const paid = await admin.simulate({ cvu, amount });
    expect(paid.json?.conciliated, JSON.stringify(paid.json)).toBe(true);
  };
  return { m, admin, create, advanceTo, pay };
}

interface OutboxRow {
  id: string;
  kind: string;
  channel: string;
  day: string;
  recipient: string;
  status: string;
  scheduledFor: string;
  transferId: string | null;
  /** The run_at of each send job the message has (one, once queued). */
  jobs: string[];
}

/** A charge's messages, in time order (the outbox API reads the same table once it lands). */
async function outbox(referenceId: string): Promise<OutboxRow[]> {
  const { rows } = await sql<{
    id: string;
    kind: string;
    channel: string;
    day: string;
    recipient: string;
    status: string;
    scheduled_for: Date;
    transfer_id: string | null;
    jobs: Date[];
  }>`
    select n.id, n.kind, n.channel, n.day::text as day, n.recipient, n.status, n.scheduled_for, n.transfer_id,
           coalesce(array_agg(j.run_at order by j.run_at) filter (where j.id is not null), '{}') as jobs
      from notifications n
      join charges c on c.id = n.charge_id
      left join graphile_worker.jobs j on j.key = 'send-notification:' || n.id::text and j.task_identifier = 'send-notification'
     where c.reference_id = ${referenceId}
     group by n.id
     order by n.scheduled_for, n.kind, n.channel, n.id`.execute(t.database.db);
  return rows.map((row) => ({
    id: row.id,
    kind: row.kind,
    channel: row.channel,
    day: row.day,
    recipient: row.recipient,
    status: row.status,
    scheduledFor: row.scheduled_for.toISOString(),
    transferId: row.transfer_id,
    jobs: row.jobs.map((runAt) => new Date(runAt).toISOString()),
  }));
}

/** `kind channel day status` lines of a charge's schedule (confirmations apart). */
async function schedule(referenceId: string): Promise<string[]> {
  return (await outbox(referenceId)).filter((row) => row.kind !== "payment_confirmation").map((row) => `${row.kind} ${row.channel} ${row.day} ${row.status}`);
}

/** `schedule()` of a charge due 2026-12-10 with both channels (initial message on 2026-11-22 unless told), by the status of each kind. */
function bothChannels(status: { initial: string; advance_reminder: string; due_date: string }, initialDay = "2026-11-22"): string[] {
  return [
    ["initial", initialDay],
    ["advance_reminder", "2026-12-09"],
    ["due_date", "2026-12-10"],
  ].flatMap(([kind, day]) => ["email", "whatsapp"].map((channel) => `${kind} ${channel} ${day} ${status[kind as keyof typeof status]}`));
}

async function confirmations(referenceId: string): Promise<OutboxRow[]> {
  return (await outbox(referenceId)).filter((row) => row.kind === "payment_confirmation");
}

/** Queued messages have exactly one send job; the others none. */
function expectOneJobPerQueued(rows: OutboxRow[]) {
  for (const row of rows) expect(row.jobs, `${row.kind} ${row.channel} ${row.status}`).toHaveLength(row.status === "queued" ? 1 : 0);
}

describe("the schedule", () => {
  it("one due date: the initial message queued at creation; the advance reminder and the due date's at 10:00, each queued when the clock gets there", async () => {
    const { create, advanceTo } = await setup();
    const charge = await create(notified());
    const rows = await outbox(charge.referenceId);
    expect(rows.map(({ kind, channel, day, recipient, status, scheduledFor }) => ({ kind, channel, day, recipient, status, scheduledFor }))).toEqual([
      { kind: "initial", channel: "email", day: "2026-11-22", recipient: EMAIL, status: "queued", scheduledFor: "2026-11-22T15:00:00.000Z" },
      { kind: "initial", channel: "whatsapp", day: "2026-11-22", recipient: CHAT, status: "queued", scheduledFor: "2026-11-22T15:00:00.000Z" },
      { kind: "advance_reminder", channel: "email", day: "2026-12-09", recipient: EMAIL, status: "scheduled", scheduledFor: "2026-12-09T13:00:00.000Z" },
      { kind: "advance_reminder", channel: "whatsapp", day: "2026-12-09", recipient: CHAT, status: "scheduled", scheduledFor: "2026-12-09T13:00:00.000Z" },
      { kind: "due_date", channel: "email", day: "2026-12-10", recipient: EMAIL, status: "scheduled", scheduledFor: "2026-12-10T13:00:00.000Z" },
      { kind: "due_date", channel: "whatsapp", day: "2026-12-10", recipient: CHAT, status: "scheduled", scheduledFor: "2026-12-10T13:00:00.000Z" },
    ]);
    expectOneJobPerQueued(rows);

    await advanceTo("2026-12-09T12:59:59Z"); // 09:59:59 the day before
    expect(await schedule(charge.referenceId)).toEqual(bothChannels({ initial: "queued", advance_reminder: "scheduled", due_date: "scheduled" }));
    await advanceTo("2026-12-09T13:00:00Z"); // 10:00
    expect(await schedule(charge.referenceId)).toEqual(bothChannels({ initial: "queued", advance_reminder: "queued", due_date: "scheduled" }));
    await advanceTo("2026-12-10T13:00:00Z");
    expect((await schedule(charge.referenceId)).filter((line) => line.startsWith("due_date"))).toEqual([
      "due_date email 2026-12-10 queued",
      "due_date whatsapp 2026-12-10 queued",
    ]);
    expectOneJobPerQueued(await outbox(charge.referenceId));
  });

  it("two due dates with a surcharge: also the day after the first and the second due date", async () => {
    const { create } = await setup();
    const charge = await create(
      notified({ sendWhatsappNotification: false, dueDates: ["2026-12-10", "2026-12-20"], surcharge: { type: "percentage", value: 10 } }),
    );
    expect((await outbox(charge.referenceId)).map((row) => `${row.kind} ${row.channel} ${row.scheduledFor} ${row.status}`)).toEqual([
      "initial email 2026-11-22T15:00:00.000Z queued",
      "advance_reminder email 2026-12-09T13:00:00.000Z scheduled",
      "due_date email 2026-12-10T13:00:00.000Z scheduled",
      "first_due_date_passed email 2026-12-11T13:00:00.000Z scheduled",
      "second_due_date email 2026-12-20T13:00:00.000Z scheduled",
    ]);
  });

  it("deferredInitialNotificationDate: the initial message waits for 10:00 that day", async () => {
    const { create, advanceTo } = await setup();
    const charge = await create(notified({ sendEmailNotification: false, deferredInitialNotificationDate: "2026-12-01" }));
    const rows = await outbox(charge.referenceId);
    expect(rows.map((row) => `${row.kind} ${row.scheduledFor} ${row.status}`)).toEqual([
      "initial 2026-12-01T13:00:00.000Z scheduled",
      "advance_reminder 2026-12-09T13:00:00.000Z scheduled",
      "due_date 2026-12-10T13:00:00.000Z scheduled",
    ]);
    expectOneJobPerQueued(rows);
    await advanceTo("2026-12-01T13:00:00Z");
    expect(await schedule(charge.referenceId)).toEqual([
      "initial whatsapp 2026-12-01 queued",
      "advance_reminder whatsapp 2026-12-09 scheduled",
      "due_date whatsapp 2026-12-10 scheduled",
    ]);
  });

  it("reminderNotificationDate: the advance reminder at 10:00 that day instead of the day before", async () => {
    const { create } = await setup();
    const charge = await create(notified({ sendWhatsappNotification: false, reminderNotificationDate: "2026-12-05" }));
    expect((await outbox(charge.referenceId)).map((row) => `${row.kind} ${row.scheduledFor}`)).toEqual([
      "initial 2026-11-22T15:00:00.000Z",
      "advance_reminder 2026-12-05T13:00:00.000Z",
      "due_date 2026-12-10T13:00:00.000Z",
    ]);
  });

  it("short-lived with under 24 hours to its due date: no advance reminder", async () => {
    const { create, advanceTo } = await setup();
    const charge = await create(notified({ sendWhatsappNotification: false, dueDates: ["2026-11-23T11:00:00-03:00"] }));
    expect((await outbox(charge.referenceId)).map((row) => `${row.kind} ${row.scheduledFor} ${row.status}`)).toEqual([
      "initial 2026-11-22T15:00:00.000Z queued",
      "due_date 2026-11-23T13:00:00.000Z scheduled",
    ]);
    // Past its due minute the charge has expired; the 10:00 message, due before that, still went out.
    await advanceTo("2026-11-23T14:00:00Z");
    expect(await schedule(charge.referenceId)).toEqual(["initial email 2026-11-22 queued", "due_date email 2026-11-23 queued"]);
  });

  it("a draft has no messages, not even once its amount is completed", async () => {
    const { m, create, advanceTo } = await setup();
    const draft = await create(draftChargeBody({ customer: { name: "Juan Pérez", email: EMAIL, phoneNumber: PHONE } }));
    expect(await outbox(draft.referenceId)).toEqual([]);
    const completed = await m.call("PATCH", `/payment-request/${draft.referenceId}`, { amount: 500 });
    expect(completed.json.state).toBe("pending");
    expect(await outbox(draft.referenceId)).toEqual([]);
    await advanceTo("2026-12-10T13:00:00Z");
    expect(await outbox(draft.referenceId)).toEqual([]);
  });

  it("a clock jump over several days and past the last due date queues what came due, in order, paced per channel", async () => {
    const { m, create, advanceTo } = await setup();
    const charge = await create(notified({ dueDates: ["2026-12-10", "2026-12-20"], surcharge: { type: "fixed", value: 100 } }));
    await advanceTo("2026-12-21T03:00:00Z"); // 00:00 after the second due date: the charge is overdue
    expect((await m.call("GET", `/payment-request/${charge.referenceId}`)).json.state).toBe("overdue");
    const rows = await outbox(charge.referenceId);
    expect(rows.every((row) => row.status === "queued")).toBe(true);
    expectOneJobPerQueued(rows);
    for (const [channel, pace] of [
      ["email", 1000],
      ["whatsapp", 500],
    ] as const) {
      const later = rows.filter((row) => row.channel === channel && row.kind !== "initial");
      expect(later.map((row) => row.kind)).toEqual(["advance_reminder", "due_date", "first_due_date_passed", "second_due_date"]);
      // The send jobs run in the order the messages were scheduled, one provider slot apart.
      const runAts = later.map((row) => new Date(row.jobs[0]!).getTime());
      expect(
        runAts.slice(1).map((runAt, i) => runAt - runAts[i]!),
        channel,
      ).toEqual([pace, pace, pace]);
    }
  });

  it("a sweep that follows another starts where the channel's queue ends", async () => {
    const { create, advanceTo } = await setup();
    const first = await create(notified({ sendWhatsappNotification: false, dueDates: ["2026-12-10", "2026-12-20"], surcharge: { type: "none", value: 0 } }));
    await advanceTo("2026-12-11T13:00:00Z"); // advance reminder, due date, first due date passed
    const queued = (await outbox(first.referenceId)).filter((row) => row.kind === "first_due_date_passed");
    expect(queued.map((row) => row.status)).toEqual(["queued"]);
    // The email queue ends an hour from now: the provider is still busy with what came before.
    const { rows } = await sql<{ run_at: Date }>`
      update graphile_worker._private_jobs set run_at = now() + interval '1 hour'
       where key = ${`send-notification:${queued[0]!.id}`} returning run_at`.execute(t.database.db);
    const queueEnd = rows[0]!.run_at.getTime();

    const second = await create(notified({ sendWhatsappNotification: false, dueDates: ["2026-12-15"] }));
    await advanceTo("2026-12-14T13:00:00Z"); // the second charge's advance reminder
    const reminder = (await outbox(second.referenceId)).find((row) => row.kind === "advance_reminder")!;
    expect(reminder.status).toBe("queued");
    expect(new Date(reminder.jobs[0]!).getTime()).toBe(queueEnd + 1000);
  });
});

describe("withdrawal", () => {
  it("a full payment withdraws what is still scheduled or queued", async () => {
    const { create, pay } = await setup();
    const charge = await create(notified({ sendWhatsappPaymentConfirmation: false }));
    await pay(charge.CVU, 1000);
    expect(await schedule(charge.referenceId)).toEqual(bothChannels({ initial: "canceled", advance_reminder: "canceled", due_date: "canceled" }));
  });

  it("a partial payment withdraws nothing: the reminders go out (with the balance)", async () => {
    const { create, pay, advanceTo } = await setup();
    const charge = await create(notified({ sendWhatsappPaymentConfirmation: false }));
    await pay(charge.CVU, 400);
    await advanceTo("2026-12-09T13:00:00Z");
    expect(await schedule(charge.referenceId)).toEqual(bothChannels({ initial: "queued", advance_reminder: "queued", due_date: "scheduled" }));
  });

  it("cancel withdraws, and the clock queues nothing of a canceled charge", async () => {
    const { m, create, advanceTo } = await setup();
    const charge = await create(notified({ deferredInitialNotificationDate: "2026-12-01", sendEmailNotification: false }));
    expect((await m.call("POST", `/payment-request/${charge.referenceId}/cancel`)).json.state).toBe("canceled");
    await advanceTo("2026-12-10T13:00:00Z");
    const rows = await outbox(charge.referenceId);
    expect(rows.map((row) => `${row.kind} ${row.status}`)).toEqual(["initial canceled", "advance_reminder canceled", "due_date canceled"]);
    expectOneJobPerQueued(rows);
  });

  it("closing a charge withdraws what it had scheduled from its closing instant on", async () => {
    const { create, advanceTo } = await setup();
    const charge = await create(notified({ sendWhatsappNotification: false }));
    const row = await t.database.db
      .selectFrom("charges")
      .select(["id", "integration_client_id"])
      .where("reference_id", "=", charge.referenceId)
      .executeTakeFirstOrThrow();
    // No rule schedules past the final due instant today; should one ever, closing still stops it.
    await t.database.db.transaction().execute((trx) =>
      writeNotifications(trx, [
        {
          chargeId: row.id,
          integrationClientId: row.integration_client_id,
          channel: "email",
          kind: "first_due_date_passed",
          day: "2026-12-11",
          recipient: EMAIL,
          scheduledFor: new Date("2026-12-11T13:00:00Z"),
        },
      ]),
    );
    await advanceTo("2026-12-11T03:00:00Z");
    expect(await schedule(charge.referenceId)).toEqual([
      "initial email 2026-11-22 queued",
      "advance_reminder email 2026-12-09 queued",
      "due_date email 2026-12-10 queued",
      "first_due_date_passed email 2026-12-11 canceled",
    ]);
  });
});

describe("payment confirmations", () => {
  // Per flag and mode: [after a partial payment, after the full one].
  const matrix = [
    ["omitted", "cvu", [1, 1]],
    ["omitted", "cuil", [0, 0]],
    ["true", "cvu", [1, 1]],
    ["true", "cuil", [0, 1]],
    ["false", "cvu", [0, 0]],
    ["false", "cuil", [0, 0]],
  ] as const;
  it.each(matrix)("flag %s, %s mode: a confirmation on a partial payment %s", async (flag, mode, [onPartial, onFull]) => {
    const { create, pay } = await setup();
    const flags = flag === "omitted" ? {} : { sendWhatsappPaymentConfirmation: flag === "true" };
    const charge = await create(mode === "cuil" ? notifiedCuil(flags) : notified(flags));
    await pay(charge.CVU, 400);
    const afterPartial = await confirmations(charge.referenceId);
    expect(afterPartial).toHaveLength(onPartial);
    await pay(charge.CVU, 600);
    const afterFull = await confirmations(charge.referenceId);
    expect(afterFull).toHaveLength(onPartial + onFull);
    for (const row of afterFull)
      expect(row).toMatchObject({
        channel: "whatsapp",
        recipient: CHAT,
        status: "queued",
        day: "2026-11-22",
        scheduledFor: "2026-11-22T15:00:00.000Z",
        jobs: [expect.any(String)],
      });
    expect(new Set(afterFull.map((row) => row.transferId)).size).toBe(afterFull.length);
  });

  it("one confirmation per transfer: a full payment at once gets one", async () => {
    const { create, pay } = await setup();
    const charge = await create(notified());
    await pay(charge.CVU, 1000);
    expect(await confirmations(charge.referenceId)).toHaveLength(1);
  });

  it("none without chat: the payer has no chat on", async () => {
    const { create, pay } = await setup();
    const charge = await create(notified({ sendWhatsappNotification: false, sendWhatsappPaymentConfirmation: true }));
    await pay(charge.CVU, 1000);
    expect(await confirmations(charge.referenceId)).toEqual([]);
  });
});

describe("bulk", () => {
  let dni = 31_000_000;
  const payer = () => cuilCandidatesOfDni(String(++dni))[0]!;

  it("a channel on for the batch reaches every payer with that contact; the confirmation false wins", async () => {
    const { m, admin } = await setup();
    const withPhone = chargeBody({
      sendWhatsappNotification: true,
      sendWhatsappPaymentConfirmation: true,
      customer: { name: "Con teléfono", taxDocument: payer(), phoneNumber: PHONE },
    });
    const withEmail = chargeBody({
      sendEmailNotification: true,
      sendWhatsappPaymentConfirmation: false,
      customer: { name: "Con email", taxDocument: payer(), email: EMAIL },
    });
    const withBoth = chargeBody({
      customer: { name: "Con los dos", taxDocument: payer(), email: "ana@example.com", phoneNumber: { countryCode: "+54", number: "91187654321" } },
    });
    const created = await m.call("POST", "/payment-request/bulk", { paymentRequests: [withPhone, withEmail, withBoth] });
    expect(created.status, JSON.stringify(created.json)).toBe(201);
    const initial = async (referenceId: string) =>
      (await outbox(referenceId)).filter((row) => row.kind === "initial").map((row) => `${row.channel} ${row.recipient} ${row.status}`);
    expect(await initial(withPhone.referenceId)).toEqual([`whatsapp ${CHAT} queued`]);
    expect(await initial(withEmail.referenceId)).toEqual([`email ${EMAIL} queued`]);
    expect(await initial(withBoth.referenceId)).toEqual(["email ana@example.com queued", "whatsapp 5491187654321 queued"]);
    expect(await schedule(withBoth.referenceId)).toHaveLength(6);
    expectOneJobPerQueued(await outbox(withBoth.referenceId));

    // The batch's confirmation is false: the payer with chat gets none, even paying in full.
    const paid = await admin.simulate({ cvu: created.json.sharedCvu, amount: 1000, cuil: withPhone.customer.taxDocument });
    expect(paid.json.conciliated, JSON.stringify(paid.json)).toBe(true);
    expect(await confirmations(withPhone.referenceId)).toEqual([]);
    expect(await schedule(withPhone.referenceId)).toEqual([
      "initial whatsapp 2026-11-22 canceled",
      "advance_reminder whatsapp 2026-12-09 canceled",
      "due_date whatsapp 2026-12-10 canceled",
    ]);
  });
});

describe("PATCH customer", () => {
  it("messages not sent yet go to the new payer's contacts", async () => {
    const { m, create } = await setup();
    const charge = await create(notifiedCuil());
    const changed = await m.call("PATCH", `/payment-request/${charge.referenceId}/customer`, {
      taxDocument: "20123456786",
      name: "María Gómez",
      email: "maria@example.com",
      phoneNumber: { countryCode: "+54", number: "91100001111" },
    });
    expect(changed.status, JSON.stringify(changed.json)).toBe(200);
    expect((await outbox(charge.referenceId)).map((row) => `${row.kind} ${row.channel} ${row.recipient}`)).toEqual([
      "initial email maria@example.com",
      "initial whatsapp 5491100001111",
      "advance_reminder email maria@example.com",
      "advance_reminder whatsapp 5491100001111",
      "due_date email maria@example.com",
      "due_date whatsapp 5491100001111",
    ]);
    // Only the email changes: the chat number stays.
    expect((await m.call("PATCH", `/payment-request/${charge.referenceId}/customer`, { email: "maria.gomez@example.com" })).status).toBe(200);
    expect(new Set((await outbox(charge.referenceId)).map((row) => row.recipient))).toEqual(new Set(["maria.gomez@example.com", "5491100001111"]));
  });
});

describe("the sweep", () => {
  it("run again, or twice at once, queues each message once with one send job", async () => {
    const { m, create } = await setup();
    const charges = [];
    for (let i = 0; i < 3; i++) charges.push(await create(notified({ deferredInitialNotificationDate: "2026-12-01" })));
    // Move this integration's clock without the Admin API (which would sweep itself), then sweep every
    // integration as the minute's job does, twice at once.
    const offsetMs = new Date("2026-12-01T13:00:00Z").getTime() - t.clock.now().getTime();
    await t.database.db
      .updateTable("integration_clients")
      .set({ clock_offset_ms: offsetMs })
      .where("provider_client_id", "=", m.sandbox.integration.clientId)
      .execute();
    const sweep = () => queueDueNotifications(t.database.db, { now: t.clock.now(), sendsPerSecond: { email: 1, whatsapp: 2 } });
    const [a, b] = await Promise.all([sweep(), sweep()]);
    expect(a + b).toBeGreaterThanOrEqual(6);
    expect(await sweep()).toBe(0);
    for (const charge of charges) {
      const rows = await outbox(charge.referenceId);
      expect(await schedule(charge.referenceId)).toEqual(
        bothChannels({ initial: "queued", advance_reminder: "scheduled", due_date: "scheduled" }, "2026-12-01"),
      );
      expectOneJobPerQueued(rows);
    }
  });
});
