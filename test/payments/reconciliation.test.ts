// Money in and time, through the API alone: simulated transfers, every row of the seed's state table,
// every unmatched reason, duplicate transactions, concurrent transfers, the surcharge, and the Sandbox
// clock driving overdue, expiry and draft discard.
import { describe, expect, it } from "vitest";
import { serviceForFile } from "../helpers/service.ts";
import { chargeBody, draftChargeBody } from "../helpers/charges.ts";
import { uniqueRef } from "../helpers/unique-ref.ts";
import { sandboxIntegration } from "../helpers/sandbox-admin.ts";
import { receiveTransfer } from "../../domain/reconciliation/reconcile.ts";

const t = serviceForFile({ start: new Date("2026-11-22T15:00:00Z") }); // 12:00 in Argentina

const cuil = (taxDocument: string, extra: object = {}) => chargeBody({ conciliationType: "cuil", customer: { name: "Pagador", taxDocument }, ...extra });

async function setup() {
  const { merchant: m, admin, createCharge: create } = await sandboxIntegration(t);
  const state = async (referenceId: string) => (await m.call("GET", `/payment-request/${referenceId}`)).json.state;
  const events = admin.events;
  /** The one event of `type` about the charge `referenceId`. */
  const eventOf = async (type: string, referenceId: string) => {
    const about = (await events(type)).filter((e) => e.payload.referenceId === referenceId);
    expect(about, `${type} events of ${referenceId}`).toHaveLength(1);
    return about[0]!;
  };
  return { m, admin, create, state, events, eventOf };
}

describe("payments", () => {
  it("a partial then a full payment: partial_payment, then total_payment, each with its event; the CVU returns to the pool", async () => {
    const { m, admin, create, state, events } = await setup();
    const charge = await create(chargeBody({ metadata: { orderId: "A-1" } }));
    const partial = await admin.simulate({ cvu: charge.CVU, amount: 400 });
    expect(partial.status).toBe(200);
    expect(partial.json).toMatchObject({
      simulated: true,
      forcePspFailure: false,
      cvu: charge.CVU,
      amount: 400,
      conciliated: true,
      webhookWillFire: true,
      webhookEvent: "payment_request.payment_received",
      paymentRequestId: charge.paymentRequestId,
    });
    expect(partial.json.numeroCuenta).toBe(charge.CVU.slice(8, 21));
    expect(await state(charge.referenceId)).toBe("partial_payment");
    const afterPartial = await events("payment_request.payment_received");
    expect(afterPartial).toHaveLength(1);
    const first = afterPartial[0]!;

    await admin.simulate({ cvu: charge.CVU, amount: 600 });
    expect(await state(charge.referenceId)).toBe("total_payment");
    // Both events carry the test clock's one instant: the one listed after the first payment is the first.
    const all = await events("payment_request.payment_received");
    expect(all.map((e) => e.eventId)).toContain(first.eventId);
    const received = [first, ...all.filter((e) => e.eventId !== first.eventId)];
    expect(received.map((e) => e.payload)).toEqual([
      expect.objectContaining({
        event: "payment_request.payment_received",
        stateType: "partial_payment",
        livemode: false,
        referenceId: charge.referenceId,
        requestedAmount: 1000,
        paidAmount: 400,
        thisPaymentAmount: 400,
        remainingAmount: 600,
        reconciledPayerCuil: 20301234563,
        metadata: { orderId: "A-1" },
      }),
      expect.objectContaining({ stateType: "total_payment", paidAmount: 1000, thisPaymentAmount: 600, remainingAmount: 0 }),
    ]);
    const list = (await m.call("GET", "/payment-request")).json.find((c: { referenceId: string }) => c.referenceId === charge.referenceId);
    expect(list.paidAmount).toBe(1000);
    const next = await create(chargeBody());
    expect(next.CVU).toBe(charge.CVU);
  });

  it("the same transaction twice has one effect", async () => {
    const { create, state, events } = await setup();
    const charge = await create(chargeBody());
    const transfer = {
      transactionId: uniqueRef("tx"),
      amountCents: 50000,
      receivingCvu: charge.CVU,
      senderCuil: "20301234563",
      operatedAt: t.clock.now(),
      source: "bank-feed" as const,
    };
    const first = await receiveTransfer(t.database.db, transfer, { receivedAt: t.clock.now(), livemode: false });
    const second = await receiveTransfer(t.database.db, transfer, { receivedAt: t.clock.now(), livemode: false });
    expect(first.duplicate).toBe(false);
    expect(second.duplicate).toBe(true);
    expect(await state(charge.referenceId)).toBe("partial_payment");
    expect(await events("payment_request.payment_received")).toHaveLength(1);
  });

  it("ten concurrent transfers to one charge sum correctly", async () => {
    const { m, admin, create } = await setup();
    const charge = await create(chargeBody({ amount: 1000 }));
    const results = await Promise.all(Array.from({ length: 10 }, () => admin.simulate({ cvu: charge.CVU, amount: 100 })));
    expect(results.every((r) => r.json.conciliated)).toBe(true);
    const after = (await m.call("GET", "/payment-request")).json.find((c: { referenceId: string }) => c.referenceId === charge.referenceId);
    expect(after).toMatchObject({ paidAmount: 1000, state: "total_payment" });
  });

  it("CUIL mode matches by the sender's CUIL among the CVU's open charges; a DNI charge matches the CUIL that contains it", async () => {
    const { admin, create, state } = await setup();
    const a = await create(cuil("20301234563"));
    const b = await create(cuil("12345678"));
    const c = await create(cuil("27111111117"));
    expect(b.CVU).toBe(a.CVU);
    expect(c.CVU).toBe(a.CVU);
    const paidB = await admin.simulate({ cvu: a.CVU, amount: 1000, cuil: "20123456786" });
    expect(paidB.json).toMatchObject({ conciliated: true, paymentRequestId: b.paymentRequestId });
    expect(await state(b.referenceId)).toBe("total_payment");
    expect(await state(a.referenceId)).toBe("pending");
    // The shared CVU stays shared while charges are left on it (it does not count them: 1), and is free once
    // the last is paid.
    const pool = () => t.database.db.selectFrom("cvu_accounts").select(["holding", "open_charges"]).where("cvu", "=", a.CVU).executeTakeFirstOrThrow();
    expect(await pool()).toEqual({ holding: "shared", open_charges: 1 });
    await admin.simulate({ cvu: a.CVU, amount: 1000, cuil: "27111111117" });
    expect(await pool()).toEqual({ holding: "shared", open_charges: 1 });
    await admin.simulate({ cvu: a.CVU, amount: 1000, cuil: "20301234563" });
    expect(await state(a.referenceId)).toBe("total_payment");
    expect(await state(c.referenceId)).toBe("total_payment");
    expect(await pool()).toEqual({ holding: "free", open_charges: 0 });
  });

  it("the surcharge applies from the day after the first due date", async () => {
    const { admin, create, eventOf } = await setup();
    const charge = await create(chargeBody({ dueDates: ["2026-11-25", "2026-12-05"], surcharge: { type: "percentage", value: 10 } }));
    await admin.simulate({ cvu: charge.CVU, amount: 1000, fechaOperacion: "2026-11-25T23:59:00-03:00" });
    const onTime = (await eventOf("payment_request.payment_received", charge.referenceId)).payload;
    expect(onTime).toMatchObject({ stateType: "total_payment", requestedAmount: 1000 });

    const late = await create(chargeBody({ dueDates: ["2026-11-25", "2026-12-05"], surcharge: { type: "percentage", value: 10 } }));
    await admin.simulate({ cvu: late.CVU, amount: 1000, fechaOperacion: "2026-11-26T00:00:00-03:00" });
    const afterFirst = (await eventOf("payment_request.payment_received", late.referenceId)).payload;
    expect(afterFirst).toMatchObject({ stateType: "partial_payment", requestedAmount: 1100, remainingAmount: 100 });
  });

  it("forcePspFailure records nothing", async () => {
    const { m, admin, create, state } = await setup();
    const charge = await create(chargeBody());
    const failed = await admin.simulate({ cvu: charge.CVU, amount: 1000, forcePspFailure: true });
    expect(failed.json).toMatchObject({ forcePspFailure: true, conciliated: false, webhookWillFire: false });
    expect(failed.json).not.toHaveProperty("webhookEvent");
    expect(await state(charge.referenceId)).toBe("pending");
    // Nothing written: no event row of the integration at all, whether the event list would show it or not.
    const eventRows = await t.database.db
      .selectFrom("events as e")
      .innerJoin("integration_clients as c", "c.id", "e.integration_client_id")
      .select("e.id")
      .where("c.provider_client_id", "=", m.sandbox.integration.clientId)
      .execute();
    expect(eventRows).toHaveLength(0);
  });

  it.each([
    ["a transfer", false],
    ["a forced provider failure", true],
  ])("%s to a CVU that is not the integration's is 400 CvuNotInIntegrationError, and records nothing", async (_, forcePspFailure) => {
    const { admin } = await setup();
    const other = await setup();
    const charge = await other.create(chargeBody());
    const result = await admin.simulate({ cvu: charge.CVU, amount: 10, forcePspFailure });
    expect(result.status).toBe(400);
    expect(result.json).toMatchObject({ code: "CvuNotInIntegrationError", message: "The cvu does not belong to a charge of this integration" });
    expect(await other.state(charge.referenceId)).toBe("pending");
    const recorded = await t.database.db.selectFrom("transfers").select("id").where("receiving_cvu", "=", charge.CVU).execute();
    expect(recorded).toHaveLength(0);
    // A CVU nobody ever held is refused the same way.
    const unknown = await admin.simulate({ cvu: "0000999000000000000011", amount: 10, forcePspFailure });
    expect(unknown.status).toBe(400);
    expect(unknown.json).toMatchObject({ code: "CvuNotInIntegrationError" });
  });
});

describe("unmatched transfers", () => {
  it.each([
    ["canceled", async (s: Awaited<ReturnType<typeof setup>>, charge: any) => void (await s.m.call("POST", `/payment-request/${charge.referenceId}/cancel`))],
    ["already_paid", async (s: Awaited<ReturnType<typeof setup>>, charge: any) => void (await s.admin.simulate({ cvu: charge.CVU, amount: 1000 }))],
    ["expired", async (s: Awaited<ReturnType<typeof setup>>) => void (await s.admin.advanceClock({ advanceTo: "2026-12-11T03:00:00Z" }))],
  ])("reason %s, from what the CVU held last", async (reason, close) => {
    const s = await setup();
    const charge = await s.create(chargeBody());
    await close(s, charge);
    const result = await s.admin.simulate({ cvu: charge.CVU, amount: 50 });
    expect(result.json).toMatchObject({ conciliated: false, webhookEvent: "payment.unmatched", webhookWillFire: false, unmatchedReason: reason });
    const unmatched = await s.events("payment.unmatched");
    expect(unmatched.at(-1)!.payload).toMatchObject({
      event: "payment.unmatched",
      reason,
      livemode: false,
      cvu: charge.CVU,
      amount: 50,
      referenceId: charge.referenceId,
    });
  });

  it("no_cuil_match: a shared CVU with open charges, none for this sender", async () => {
    const s = await setup();
    const charge = await s.create(cuil("20301234563"));
    const result = await s.admin.simulate({ cvu: charge.CVU, amount: 50, cuil: "20123456786" });
    expect(result.json).toMatchObject({ conciliated: false, unmatchedReason: "no_cuil_match" });
  });

  it("ambiguous: an internal anomaly (a CVU held for a charge that is already closed)", async () => {
    const s = await setup();
    const charge = await s.create(chargeBody());
    await t.database.db.updateTable("charges").set({ state: "canceled" }).where("id", "=", charge.paymentRequestId).execute(); // the hold is left behind
    const result = await s.admin.simulate({ cvu: charge.CVU, amount: 50 });
    expect(result.json).toMatchObject({ conciliated: false, unmatchedReason: "ambiguous" });
    expect((await s.events("payment.unmatched")).at(-1)!.payload).toMatchObject({ reason: "ambiguous", cvu: charge.CVU });
  });

  it("no_pending: a transfer to a CVU nobody holds", async () => {
    const outcome = await receiveTransfer(
      t.database.db,
      { transactionId: uniqueRef("tx"), amountCents: 100, receivingCvu: "0000253200000099999995", operatedAt: t.clock.now(), source: "bank-feed" },
      { receivedAt: t.clock.now(), livemode: false },
    );
    expect(outcome).toMatchObject({ duplicate: false, unmatchedReason: "no_pending" });
    expect(outcome.event).toBeUndefined();
  });
});

describe("time, through the Sandbox clock", () => {
  it("pending → overdue and partial_payment → partial_overdue at 00:00 after the last due date, without an expired event", async () => {
    const s = await setup();
    const unpaid = await s.create(chargeBody({ dueDates: ["2026-11-25"] }));
    const partly = await s.create(chargeBody({ dueDates: ["2026-11-25"] }));
    await s.admin.simulate({ cvu: partly.CVU, amount: 100 });
    const before = await s.admin.advanceClock({ advanceTo: "2026-11-26T02:59:00Z" }); // 23:59 on the 25th
    expect(before.json).toMatchObject({ now: "2026-11-26T02:59:00.000Z", today: "2026-11-25" });
    await s.m.renew();
    expect(await s.state(unpaid.referenceId)).toBe("pending");
    await s.admin.advanceClock({ advanceBy: "PT1M" });
    await s.m.renew();
    expect(await s.state(unpaid.referenceId)).toBe("overdue");
    expect(await s.state(partly.referenceId)).toBe("partial_overdue");
    expect(await s.events("payment_request.expired")).toHaveLength(0);
  });

  it("a charge with a timed due date expires at that minute with payment_request.expired", async () => {
    const s = await setup();
    const charge = await s.create(chargeBody({ dueDates: ["2026-11-22T18:30"], metadata: { orderId: "B-2" } }));
    await s.admin.advanceClock({ advanceTo: "2026-11-22T21:30:00Z" });
    await s.m.renew();
    expect(await s.state(charge.referenceId)).toBe("overdue");
    const expired = await s.events("payment_request.expired");
    expect(expired.map((e) => e.payload)).toEqual([
      expect.objectContaining({
        event: "payment_request.expired",
        stateType: "overdue",
        livemode: false,
        referenceId: charge.referenceId,
        requestedAmount: 1000,
        paidAmount: 0,
        remainingAmount: 1000,
        dueDate: "2026-11-22T18:30",
        metadata: { orderId: "B-2" },
      }),
    ]);
  });

  it("a checkout charge expires after expiresInMinutes", async () => {
    const s = await setup();
    const charge = await s.create(chargeBody({ type: "checkout", expiresInMinutes: 5 }));
    await s.admin.advanceClock({ advanceBy: "PT4M" });
    await s.m.renew();
    expect(await s.state(charge.referenceId)).toBe("pending");
    await s.admin.advanceClock({ advanceBy: "PT1M" });
    await s.m.renew();
    expect(await s.state(charge.referenceId)).toBe("overdue");
  });

  it("an uncompleted draft is discarded after its lifetime", async () => {
    const s = await setup();
    const draft = await s.create(draftChargeBody({ description: "Borrador", customer: { name: "Ana" } }));
    await s.admin.advanceClock({ advanceBy: "PT5H" });
    await s.m.renew();
    expect(await s.state(draft.referenceId)).toBe("draft");
    await s.admin.advanceClock({ advanceBy: "PT1H" });
    await s.m.renew();
    expect((await s.m.call("GET", `/payment-request/${draft.referenceId}`)).status).toBe(404);
  });

  it("a draft given its amount falls overdue at its due date; a charge paid in time does not, and the sweep forgets it", async () => {
    const s = await setup();
    const draft = await s.create(draftChargeBody({ description: "Borrador", customer: { name: "Ana" }, dueDates: ["2026-11-23T10:00"] }));
    expect((await s.m.call("PATCH", `/payment-request/${draft.referenceId}`, { amount: 500 })).status).toBe(200);
    const paid = await s.create(chargeBody({ dueDates: ["2026-11-23T10:00"] }));
    await s.admin.simulate({ cvu: paid.CVU, amount: 1000 });
    const marks = () =>
      t.database.db
        .selectFrom("charge_deadlines as d")
        .innerJoin("charges as c", "c.id", "d.charge_id")
        .where("c.reference_id", "in", [draft.referenceId, paid.referenceId])
        .select(["c.reference_id", "d.draft"])
        .execute();
    expect(await marks()).toEqual(
      expect.arrayContaining([
        { reference_id: draft.referenceId, draft: false },
        { reference_id: paid.referenceId, draft: false },
      ]),
    );
    await s.admin.advanceClock({ advanceTo: "2026-11-23T13:00:00Z" }); // 10:00 in Argentina
    await s.m.renew();
    expect(await s.state(draft.referenceId)).toBe("overdue");
    expect(await s.state(paid.referenceId)).toBe("total_payment");
    // A charge made as a draft keeps its kind: overdue without an expired event, like a date-only due date.
    expect(await s.events("payment_request.expired")).toHaveLength(0);
    expect(await marks()).toEqual([]);
  });

  it("the clock only moves forward, and new due dates are judged by it", async () => {
    const s = await setup();
    const back = await s.admin.advanceClock({ advanceTo: "2026-11-01T00:00:00Z" });
    expect(back.status).toBe(400);
    expect(back.json).toMatchObject({ code: "SandboxClockBackwardsError" });
    await s.admin.advanceClock({ advanceBy: "P10D" });
    await s.m.renew();
    const result = await s.m.call("POST", "/payment-request", chargeBody({ dueDates: ["2026-11-30"] }));
    expect(result.status).toBe(400); // 2026-11-30 is before the integration's today (2026-12-02)
    expect((await s.admin.clock()).json.today).toBe("2026-12-02");
  });

  it("a reset starts the clock over at real time: what the clock did stays, an open charge comes due on real time, today's dates are accepted", async () => {
    const s = await setup();
    const open = await s.create(chargeBody({ dueDates: ["2026-12-20"] }));
    const timed = await s.create(chargeBody({ dueDates: ["2026-11-23T10:00"] }));
    await s.admin.advanceClock({ advanceBy: "P3W" });
    await s.m.renew();
    expect(await s.state(timed.referenceId)).toBe("overdue");
    // A day's count written while the clock was ahead, and one of real today.
    const scope = `integration:${(await s.admin.call("GET", "/my-integration/me")).json.integrationClientId}`;
    await t.database.db
      .insertInto("daily_message_usage")
      .values([
        { scope, day: "2026-12-13", messages: 3 },
        { scope, day: "2026-11-22", messages: 2 },
      ])
      .execute();

    const reset = await s.admin.call("POST", "/my-integration/sandbox-clock/reset");
    expect(reset.status, reset.text).toBe(200);
    expect(reset.json).toEqual({ now: "2026-11-22T15:00:00.000Z", offsetSeconds: 0, today: "2026-11-22" });
    expect((await s.admin.clock()).json).toEqual(reset.json);
    await s.m.renew();
    // History is not rewritten: the expired charge stays closed; the open one is still open and due as before.
    expect(await s.state(timed.referenceId)).toBe("overdue");
    expect(await s.state(open.referenceId)).toBe("pending");
    // A due date after real today is accepted again (3 weeks ahead, it was before today).
    await s.create(chargeBody({ dueDates: ["2026-11-25"] }));
    const counts = await t.database.db.selectFrom("daily_message_usage").select(["day", "messages"]).where("scope", "=", scope).execute();
    expect(counts.map((row) => [String(row.day), row.messages])).toEqual([["2026-11-22", 2]]);
    // The clock moves forward again from real time, and the open charge comes due on it.
    await s.admin.advanceClock({ advanceTo: "2026-12-21T03:00:00Z" });
    await s.m.renew();
    expect(await s.state(open.referenceId)).toBe("overdue");
    // A second reset, and one of a clock never moved, answer real time.
    expect((await s.admin.call("POST", "/my-integration/sandbox-clock/reset")).json.offsetSeconds).toBe(0);
    expect((await s.admin.call("POST", "/my-integration/sandbox-clock/reset")).json.offsetSeconds).toBe(0);
  });

  it("two sweepers at once move each charge once and write each event once", async () => {
    const s = await setup();
    const { runTimeTransitions } = await import("../../domain/charges/time-transitions.ts");
    const later = new Date("2026-11-22T22:00:00Z");
    // Close first what earlier tests left due by then, so the two sweepers below find exactly these five.
    await runTimeTransitions(t.database.db, { now: later, livemode: false, draftLifetimeHours: 6 });
    const charges = await Promise.all(Array.from({ length: 5 }, () => s.create(chargeBody({ dueDates: ["2026-11-22T18:30"] }))));
    const [a, b] = await Promise.all([
      runTimeTransitions(t.database.db, { now: later, livemode: false, draftLifetimeHours: 6 }),
      runTimeTransitions(t.database.db, { now: later, livemode: false, draftLifetimeHours: 6 }),
    ]);
    expect(a.closed + b.closed).toBe(5);
    const expired = (await s.events("payment_request.expired")).filter((e) =>
      charges.some((c) => c.referenceId === (e.payload as { referenceId: string }).referenceId),
    );
    expect(expired).toHaveLength(5);
  });
});
