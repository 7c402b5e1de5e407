// The daily statement over real HTTP: random days of traffic (payments in full, partial and over, transfers
// to a canceled charge's CVU, then assignments, returns finished, pending and failed) whose statement must
// list every transfer of the day once and add up to the cent, checked against the unmatched payments'
// own view; the CSV; a past day changed only by later resolutions, flagged; the platform's view with money
// of no integration; and the documented refusals. The worker's return job is run by calling its step
// (settleReturn) with the service's clock: no waiting.
import { createHmac, randomUUID } from "node:crypto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { sandboxBank } from "../../domain/outbound/sandbox-bank.ts";
import { settleReturn } from "../../domain/reconciliation/return-unmatched.ts";
import type { components } from "../../generated/types/admin.ts";
import { chargeBody } from "../helpers/charges.ts";
import { sandboxIntegration, signedInAdmin } from "../helpers/sandbox-admin.ts";
import { read, serviceForFile } from "../helpers/service.ts";
import { uniqueRef } from "../helpers/unique-ref.ts";

const BANK_FEED_SECRET = "bank-feed-secret-for-tests-0123456789";
const errorBody = { code: expect.any(String), message: expect.any(String), id: expect.any(String) };
const cents = (pesos: number) => Math.round(pesos * 100);

// 23:30 in Argentina on 2026-11-22: the day ends half an hour into the test's clock.
const t = serviceForFile({ start: new Date("2026-11-23T02:30:00Z"), env: { COBRO_BANK_FEED_SECRET: BANK_FEED_SECRET } });
const DAY = "2026-11-22";

async function bankFeedTransfer(body: object) {
  const raw = JSON.stringify(body);
  const timestamp = Math.floor(t.clock.now().getTime() / 1000);
  const signature = `t=${timestamp},v1=${createHmac("sha256", BANK_FEED_SECRET).update(`${timestamp}.${raw}`).digest("hex")}`;
  return read(
    await fetch(`${t.adminUrl}/internal/bank-feed/transfers`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-bank-feed-signature": signature },
      body: raw,
    }),
  );
}

/** The return job's two runs: the Sandbox's bank takes the return, then finishes it (returned, or failed when asked to). */
async function bankFinishes(returnId: string) {
  const deps = { db: t.database.db, clock: t.clock, bank: sandboxBank, livemode: false };
  expect(await settleReturn(deps, returnId)).toMatchObject({ kind: "pending" });
  return settleReturn(deps, returnId);
}

type Line = Record<string, unknown> & { transactionId: string };
type UnmatchedPayment = components["schemas"]["UnmatchedPayment"];
const AMOUNTS = ["matchedAmount", "assignedAmount", "returnedAmount", "returningAmount", "unresolvedAmount"] as const;

/** The statement's own arithmetic: each line splits its transfer, the totals are the lines' sums, received = the five parts. */
function expectReconciled(statement: { totals: Record<string, number>; lines: Line[] }) {
  for (const line of statement.lines) {
    expect(
      AMOUNTS.reduce((sum, part) => sum + cents(line[part] as number), 0),
      line.transactionId,
    ).toBe(cents(line.grossAmount as number));
  }
  const total = (field: string) => statement.lines.reduce((sum, line) => sum + cents(line[field] as number), 0);
  for (const field of [...AMOUNTS, "integrationCommissionAmount", "serviceCommissionAmount", "merchantNetAmount"]) {
    expect(cents(statement.totals[field]!), field).toBe(total(field));
  }
  expect(cents(statement.totals.receivedAmount!)).toBe(total("grossAmount"));
  expect(cents(statement.totals.receivedAmount!)).toBe(AMOUNTS.reduce((sum, part) => sum + cents(statement.totals[part]!), 0));
  expect(statement.totals.transferCount).toBe(statement.lines.length);
}

type Fate = "none" | "assign" | "assign part" | "return" | "return pending" | "return failed";
const days = fc.record({
  charges: fc.array(fc.record({ canceled: fc.boolean(), amount: fc.constantFrom(1000, 2500.5) }), { minLength: 1, maxLength: 3 }),
  transfers: fc.array(
    fc.record({
      target: fc.nat(2),
      amount: fc.constantFrom("full", "half", "over", "small"),
      fate: fc.constantFrom<Fate>("none", "assign", "assign part", "return", "return pending", "return failed"),
    }),
    { minLength: 1, maxLength: 5 },
  ),
});

describe("a day's statement", () => {
  it("lists every transfer of random days once, and its totals reconcile to the cent with the unmatched payments' own view", async () => {
    await fc.assert(
      fc.asyncProperty(days, async (day) => {
        const { merchant, admin, createCharge } = await sandboxIntegration(t);
        const charges = [];
        for (const plan of day.charges) {
          const charge = await createCharge(chargeBody({ referenceId: uniqueRef("DAY"), amount: plan.amount }));
          if (plan.canceled) expect((await merchant.call("POST", `/payment-request/${charge.referenceId}/cancel`)).status).toBe(200);
          charges.push({ ...charge, plan });
        }
        const targets: string[] = [];
        const sent = new Map<string, number>();
        const fateOf = new Map<string, Fate>();
        for (const transfer of day.transfers) {
          const charge = charges[transfer.target % charges.length]!;
          const amount = { full: charge.plan.amount, half: charge.plan.amount / 2, over: charge.plan.amount + 234.56, small: 12.34 }[transfer.amount];
          const simulated = await admin.simulate({ cvu: charge.CVU, amount });
          expect(simulated.status, simulated.text).toBe(200);
          sent.set(simulated.json.idTransaccion, cents(amount));
          fateOf.set(simulated.json.idTransaccion, transfer.fate);
        }
        // What became of the unmatched money, by each transfer's drawn fate.
        const unmatched = (await admin.call("GET", "/my-integration/unmatched-payments?limit=100")).json.items as UnmatchedPayment[];
        for (const payment of unmatched) {
          const fate = fateOf.get(payment.transactionId)!;
          const id = payment.unmatchedPaymentId;
          if (fate === "assign" || fate === "assign part") {
            const target = await createCharge(chargeBody({ referenceId: uniqueRef("ASG"), amount: fate === "assign" ? 10000 : 5 }));
            targets.push(target.paymentRequestId);
            const assigned = await admin.call("POST", `/my-integration/unmatched-payments/${id}/assignment`, { paymentRequestId: target.paymentRequestId });
            expect(assigned.status, assigned.text).toBe(200);
          } else if (fate !== "none") {
            const asked = await admin.call(
              "POST",
              `/my-integration/unmatched-payments/${id}/return`,
              fate === "return failed" ? { simulateFailure: true } : {},
              { "Idempotency-Key": randomUUID() },
            );
            expect(asked.status, asked.text).toBe(202);
            if (fate !== "return pending") await bankFinishes(asked.json.returnId);
          }
        }

        const answer = await admin.call("GET", `/my-integration/statements/${DAY}`);
        expect(answer.status, answer.text).toBe(200);
        const statement = answer.json;
        expect(statement).toMatchObject({ date: DAY, from: "2026-11-22T03:00:00.000Z", until: "2026-11-23T03:00:00.000Z", dayComplete: false });
        // Every transfer of the day once, and nothing else.
        expect(statement.lines.map((line: Line) => line.transactionId).sort()).toEqual([...sent.keys()].sort());
        for (const line of statement.lines as Line[]) expect(cents(line.grossAmount as number)).toBe(sent.get(line.transactionId));
        expectReconciled(statement);
        // Everything was resolved on the day itself: no line changed after it.
        expect(statement.totals.resolvedAfterDayCount).toBe(0);
        for (const line of statement.lines as Line[]) expect(line.resolvedAfterDay, line.transactionId).toBe(false);

        // The same money as the unmatched payments' view reads it.
        const now = (await admin.call("GET", "/my-integration/unmatched-payments?limit=100")).json.items as UnmatchedPayment[];
        const sum = (pick: (payment: UnmatchedPayment) => number) => now.reduce((total, payment) => total + pick(payment), 0);
        expect(cents(statement.totals.unresolvedAmount)).toBe(sum((payment) => cents(payment.unresolvedAmount)));
        expect(cents(statement.totals.assignedAmount)).toBe(sum((payment) => payment.assignments.reduce((s, a) => s + cents(a.amount), 0)));
        expect(cents(statement.totals.returnedAmount)).toBe(
          sum((payment) => payment.returns.filter((r) => r.state === "returned").reduce((s, r) => s + cents(r.amount), 0)),
        );
        expect(cents(statement.totals.returningAmount)).toBe(
          sum((payment) => payment.returns.filter((r) => r.state === "requested").reduce((s, r) => s + cents(r.amount), 0)),
        );
        expect(cents(statement.totals.matchedAmount)).toBe([...sent.values()].reduce((s, v) => s + v, 0) - sum((payment) => cents(payment.amount)));
        // Each line's matchedAmount against the charges themselves: what the day's transfers paid a charge on
        // arrival (its paidAmount less what was assigned to it) counts as matched up to what it owed, the rest
        // being an overpayment's excess.
        for (const charge of [
          ...charges.map((c) => ({ id: c.paymentRequestId as string, owed: c.plan.canceled ? 0 : cents(c.plan.amount) })),
          ...targets.map((id) => ({ id, owed: 0 })),
        ]) {
          const paid = cents((await admin.call("GET", `/my-integration/payment-requests/${charge.id}`)).json.paidAmount);
          const assigned = now.flatMap((payment) => payment.assignments).filter((assignment) => assignment.paymentRequestId === charge.id);
          const onArrival = paid - assigned.reduce((s, assignment) => s + cents(assignment.amount), 0);
          const matched = (statement.lines as Line[])
            .filter((line) => line.paymentRequestId === charge.id)
            .reduce((s, line) => s + cents(line.matchedAmount as number), 0);
          expect(matched, charge.id).toBe(Math.min(onArrival, charge.owed));
        }
        // The commissions are the payments' recorded breakdowns, which add up to what was applied to charges:
        // the money received less what no charge took, plus what was assigned since (an overpayment's excess
        // is split once, when assigned, never on arrival too).
        expect(
          cents(statement.totals.integrationCommissionAmount) + cents(statement.totals.serviceCommissionAmount) + cents(statement.totals.merchantNetAmount),
        ).toBe(cents(statement.totals.receivedAmount) - sum((payment) => cents(payment.amount)) + cents(statement.totals.assignedAmount));
      }),
      { numRuns: Number(process.env.STATEMENT_RUNS ?? 6) },
    );
  });

  it("a day with nothing is an empty statement with zero totals; the CSV has its header and a line per transfer", async () => {
    const { admin, createCharge } = await sandboxIntegration(t);
    const empty = await admin.call("GET", "/my-integration/statements/2026-11-20");
    expect(empty.status).toBe(200);
    expect(empty.json).toEqual({
      date: "2026-11-20",
      from: "2026-11-20T03:00:00.000Z",
      until: "2026-11-21T03:00:00.000Z",
      dayComplete: true,
      generatedAt: expect.any(String),
      totals: {
        transferCount: 0,
        receivedAmount: 0,
        matchedAmount: 0,
        assignedAmount: 0,
        returnedAmount: 0,
        returningAmount: 0,
        unresolvedAmount: 0,
        integrationCommissionAmount: 0,
        serviceCommissionAmount: 0,
        merchantNetAmount: 0,
        resolvedAfterDayCount: 0,
      },
      lines: [],
    });

    const charge = await createCharge(chargeBody({ referenceId: uniqueRef("CSV"), amount: 1234.5 }));
    const paid = await admin.simulate({ cvu: charge.CVU, amount: 1234.5 });
    const csv = await admin.call("GET", `/my-integration/statements/${DAY}`, undefined, { Accept: "text/csv" });
    expect(csv.status, csv.text).toBe(200);
    expect(csv.headers.get("content-type")).toMatch(/^text\/csv/);
    expect(csv.headers.get("content-disposition")).toBe(`attachment; filename="cobro-resumen-${DAY}.csv"`);
    const [header, line, end] = csv.text.split("\r\n");
    expect(header).toBe(
      "recordedAt,receivedAt,transactionId,cvu,payerCuil,payerName,integrationClientId,merchantUserId,paymentRequestId,referenceId,unmatchedPaymentId,unmatchedReason,unmatchedState,grossAmount,matchedAmount,assignedAmount,returnedAmount,returningAmount,unresolvedAmount,integrationCommissionAmount,serviceCommissionAmount,merchantNetAmount,lastResolutionAt,resolvedAfterDay",
    );
    const json = (await admin.call("GET", `/my-integration/statements/${DAY}`, undefined, { Accept: "application/json, text/csv;q=0.5" })).json;
    const [only] = json.lines;
    expect(only).toMatchObject({
      transactionId: paid.json.idTransaccion,
      paymentRequestId: charge.paymentRequestId,
      referenceId: charge.referenceId,
      matchedAmount: 1234.5,
    });
    expect(line).toBe(
      [
        only.recordedAt,
        only.receivedAt,
        only.transactionId,
        charge.CVU,
        "20301234563",
        "Juan Pérez",
        only.integrationClientId,
        only.merchantUserId,
        charge.paymentRequestId,
        charge.referenceId,
        "",
        "",
        "",
        "1234.50",
        "1234.50",
        "0.00",
        "0.00",
        "0.00",
        "0.00",
        only.integrationCommissionAmount.toFixed(2),
        only.serviceCommissionAmount.toFixed(2),
        only.merchantNetAmount.toFixed(2),
        "",
        "false",
      ].join(","),
    );
    expect(end).toBe("");
    // JSON preferred by its q-value, or no Accept at all: JSON.
    const preferred = await admin.call("GET", `/my-integration/statements/${DAY}`, undefined, { Accept: "text/csv;q=0.5, application/json" });
    expect(preferred.headers.get("content-type")).toMatch(/^application\/json/);
    expect(preferred.json.lines).toHaveLength(1);
  });

  it("a transfer is on the day Cobro recorded it, not the day the payer made it", async () => {
    const { admin, createCharge } = await sandboxIntegration(t);
    const charge = await createCharge(chargeBody({ referenceId: uniqueRef("LATE") }));
    const transactionId = uniqueRef("BNK");
    // Made by the payer on the 21st, reported by the bank (and recorded) on the 22nd.
    const fed = await bankFeedTransfer({ transactionId, amount: 1000, receivingCvu: charge.CVU, operatedAt: "2026-11-21T12:00:00-03:00" });
    expect(fed.json, fed.text).toMatchObject({ conciliated: true, paymentRequestId: charge.paymentRequestId });

    const recordedDay = (await admin.call("GET", `/my-integration/statements/${DAY}`)).json;
    expect(recordedDay.lines).toEqual([
      expect.objectContaining({ transactionId, receivedAt: "2026-11-21T15:00:00.000Z", recordedAt: t.clock.now().toISOString(), matchedAmount: 1000 }),
    ]);
    const madeDay = (await admin.call("GET", "/my-integration/statements/2026-11-21")).json;
    expect(madeDay.lines).toEqual([]);
    expect(madeDay.totals.transferCount).toBe(0);
  });

  it("keeps the transfers of a merchant account unlinked since: a day's money does not leave its statement", async () => {
    const { merchant, admin, createCharge } = await sandboxIntegration(t);
    const paid = await createCharge(chargeBody({ referenceId: uniqueRef("KEPT") }));
    const canceled = await createCharge(chargeBody({ referenceId: uniqueRef("KEPT") }));
    expect((await merchant.call("POST", `/payment-request/${canceled.referenceId}/cancel`)).status).toBe(200);
    await admin.simulate({ cvu: paid.CVU, amount: 1000 });
    await admin.simulate({ cvu: canceled.CVU, amount: 300 });
    const merchantUserId = (await merchant.call("GET", "/me")).json.merchantUserId as string;
    const before = (await admin.call("GET", `/my-integration/statements/${DAY}`)).json;
    expect(before.totals).toMatchObject({ transferCount: 2, receivedAmount: 1300, matchedAmount: 1000, unresolvedAmount: 300 });

    const link = (await admin.call("GET", "/my-integration/users")).json.items.find((user: { userId: string }) => user.userId === merchantUserId);
    expect((await admin.call("DELETE", `/my-integration/users/${link.integrationClientUserId}`)).status).toBe(204);
    // The unmatched payments' list no longer shows its money; the statement still holds its transfers.
    expect((await admin.call("GET", "/my-integration/unmatched-payments")).json.total).toBe(0);
    const after = (await admin.call("GET", `/my-integration/statements/${DAY}`)).json;
    expect({ lines: after.lines, totals: after.totals }).toEqual({ lines: before.lines, totals: before.totals });
    expect((await admin.call("GET", `/my-integration/statements/${DAY}?merchantUserId=${merchantUserId}`)).json.lines).toEqual(before.lines);
  });

  it("a past day changes only by later resolutions of its own unmatched money, flagged on the line", async () => {
    const { merchant, admin, createCharge } = await sandboxIntegration(t);
    const paid = await createCharge(chargeBody({ referenceId: uniqueRef("PAID") }));
    const canceled = await createCharge(chargeBody({ referenceId: uniqueRef("GONE") }));
    expect((await merchant.call("POST", `/payment-request/${canceled.referenceId}/cancel`)).status).toBe(200);
    await admin.simulate({ cvu: paid.CVU, amount: 1000 });
    const late = (await admin.simulate({ cvu: canceled.CVU, amount: 700 })).json;
    const before = (await admin.call("GET", `/my-integration/statements/${DAY}`)).json;
    expect(before.totals).toMatchObject({ transferCount: 2, receivedAmount: 1700, matchedAmount: 1000, unresolvedAmount: 700, resolvedAfterDayCount: 0 });

    t.clock.advance(45 * 60 * 1000); // 00:15 of the next day in Argentina
    const target = await createCharge(chargeBody({ referenceId: uniqueRef("LATER"), amount: 700 }));
    const [payment] = (await admin.call("GET", "/my-integration/unmatched-payments?reason=canceled")).json.items;
    expect(
      (await admin.call("POST", `/my-integration/unmatched-payments/${payment.unmatchedPaymentId}/assignment`, { referenceId: target.referenceId })).status,
    ).toBe(200);
    // A transfer of the new day belongs to the new day's statement.
    await admin.simulate({ cvu: target.CVU, amount: 5 });

    const after = (await admin.call("GET", `/my-integration/statements/${DAY}`)).json;
    expect(after.dayComplete).toBe(true);
    expect(after.totals).toMatchObject({
      transferCount: 2,
      receivedAmount: 1700,
      matchedAmount: 1000,
      assignedAmount: 700,
      unresolvedAmount: 0,
      resolvedAfterDayCount: 1,
    });
    const lineOf = (statement: { lines: Line[] }, transactionId: string) => statement.lines.find((line) => line.transactionId === transactionId)!;
    const resolved = lineOf(after, late.idTransaccion);
    expect(resolved).toMatchObject({
      unmatchedReason: "canceled",
      unmatchedState: "assigned",
      assignedAmount: 700,
      unresolvedAmount: 0,
      resolvedAfterDay: true,
      lastResolutionAt: expect.any(String),
      assignments: [{ paymentRequestId: target.paymentRequestId, referenceId: target.referenceId, amount: 700 }],
    });
    expect(Date.parse(resolved.lastResolutionAt as string)).toBeGreaterThanOrEqual(Date.parse(after.until));
    // The other line is as it was.
    const unchanged = before.lines.find((line: Line) => line.transactionId !== late.idTransaccion);
    expect(lineOf(after, unchanged.transactionId)).toEqual(unchanged);
    expectReconciled(after);
    t.clock.advance(-45 * 60 * 1000);
  });

  it("the platform admin's statement holds every integration's transfers and those of no integration", async () => {
    const mine = await sandboxIntegration(t);
    const charge = await mine.createCharge(chargeBody({ referenceId: uniqueRef("PLAT") }));
    const paid = (await mine.admin.simulate({ cvu: charge.CVU, amount: 1000 })).json;
    const integrationClientId = (await mine.admin.call("GET", "/my-integration/me")).json.integrationClientId as string;
    const transactionId = uniqueRef("BNK");
    const nobodys = await bankFeedTransfer({ transactionId, amount: 42.5, receivingCvu: "0000253200000099999995", operatedAt: "2026-11-22T23:10:00-03:00" });
    expect(nobodys.json).toMatchObject({ conciliated: false, unmatchedReason: "no_pending" });
    const platform = await signedInAdmin(t, mine.merchant.sandbox.platformAdmin);

    const all = await platform.call("GET", `/integration-admin/statements/${DAY}`);
    expect(all.status, all.text).toBe(200);
    expectReconciled(all.json);
    const ids = all.json.lines.map((line: Line) => line.transactionId);
    expect(ids).toContain(paid.idTransaccion);
    expect(ids).toContain(transactionId);
    expect(new Set(ids).size).toBe(ids.length);

    const none = (await platform.call("GET", `/integration-admin/statements/${DAY}?withoutIntegration=true`)).json;
    const own = none.lines.find((line: Line) => line.transactionId === transactionId);
    expect(own).toMatchObject({ integrationClientId: null, merchantUserId: null, unmatchedReason: "no_pending", unresolvedAmount: 42.5, grossAmount: 42.5 });
    expect(none.lines.every((line: Line) => line.integrationClientId === null)).toBe(true);

    const theirs = (await platform.call("GET", `/integration-admin/statements/${DAY}?integrationClientId=${integrationClientId}`)).json;
    expect(theirs.lines.map((line: Line) => line.transactionId)).toEqual([paid.idTransaccion]);
    expect(theirs.totals).toEqual((await mine.admin.call("GET", `/my-integration/statements/${DAY}`)).json.totals);
    const csv = await platform.call("GET", `/integration-admin/statements/${DAY}?withoutIntegration=true`, undefined, { Accept: "text/csv" });
    expect(csv.headers.get("content-type")).toMatch(/^text\/csv/);
    expect(csv.text).toContain(`,${transactionId},`);

    // The integration's statement never holds money of no integration, nor another integration's.
    const integrations = (await mine.admin.call("GET", `/my-integration/statements/${DAY}`)).json;
    expect(integrations.lines.map((line: Line) => line.transactionId)).toEqual([paid.idTransaccion]);
    const merchantUserId = (await mine.merchant.call("GET", "/me")).json.merchantUserId as string;
    expect((await mine.admin.call("GET", `/my-integration/statements/${DAY}?merchantUserId=${merchantUserId}`)).json.lines).toHaveLength(1);
    expect((await mine.admin.call("GET", `/my-integration/statements/${DAY}?merchantUserId=${randomUUID()}`)).json.lines).toHaveLength(0);
  });

  it("refuses a day to come, a day that is none, and the wrong role or no session, with the documented errors", async () => {
    const { admin, merchant } = await sandboxIntegration(t);
    const future = await admin.call("GET", "/my-integration/statements/2026-11-24");
    expect(future.status).toBe(400);
    expect(future.json).toEqual({ ...errorBody, code: "ValidationError", validationDetails: [expect.objectContaining({ field: "date", rule: "outOfRange" })] });
    // Today (the 22nd in Argentina) is there, growing; the 23rd is still to come.
    expect((await admin.call("GET", "/my-integration/statements/2026-11-23")).status).toBe(400);
    const notADay = await admin.call("GET", "/my-integration/statements/2026-02-30");
    expect(notADay.status).toBe(400);
    expect(notADay.json).toMatchObject({ code: "ValidationError", validationDetails: [expect.objectContaining({ field: "date" })] });
    const notADate = await admin.call("GET", "/my-integration/statements/yesterday");
    expect(notADate.status).toBe(400);
    expect(notADate.json).toMatchObject({ code: "ValidationError" });
    const badMerchant = await admin.call("GET", `/my-integration/statements/${DAY}?merchantUserId=nope`);
    expect(badMerchant.status).toBe(400);

    const platform = await signedInAdmin(t, merchant.sandbox.platformAdmin);
    const platformFuture = await platform.call("GET", "/integration-admin/statements/2026-11-24");
    expect(platformFuture.status).toBe(400);
    expect(platformFuture.json).toMatchObject({ code: "ValidationError", validationDetails: [expect.objectContaining({ field: "date", rule: "outOfRange" })] });

    const wrongRole = await admin.call("GET", `/integration-admin/statements/${DAY}`);
    expect(wrongRole.status).toBe(403);
    expect(wrongRole.json).toMatchObject(errorBody);
    const platformOnMine = await platform.call("GET", `/my-integration/statements/${DAY}`);
    expect(platformOnMine.status).toBe(403);
    expect(platformOnMine.json).toMatchObject(errorBody);
    const anonymous = await read(await fetch(`${t.adminUrl}/my-integration/statements/${DAY}`));
    expect(anonymous.status).toBe(401);
    expect(anonymous.json).toMatchObject(errorBody);
  });
});
