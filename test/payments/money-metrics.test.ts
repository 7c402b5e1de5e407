// The money counters, driven through the APIs: charges created by kind and channel (a bulk item once, a
// refused repeat not at all), transfers received by source and result, and the matched amounts.
import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import { cuilCandidatesOfDni } from "../../domain/tax-id.ts";
import { chargeBody, draftChargeBody } from "../helpers/charges.ts";
import { metricValue } from "../helpers/metrics.ts";
import { read, serviceForFile } from "../helpers/service.ts";
import { sandboxIntegration } from "../helpers/sandbox-admin.ts";
import { widgetIntegration } from "../checkout/widget-integration.ts";

const SECRET = "bank-feed-secret-for-tests-0123456789";
const t = serviceForFile({ start: new Date("2026-11-22T15:00:00Z"), env: { COBRO_BANK_FEED_SECRET: SECRET } });

const created = (kind: string, channel: string) => metricValue(t, "cobro_charges_created_total", { kind, channel });
const received = (labels: Record<string, string>) => metricValue(t, "cobro_transfers_received_total", labels);
const matchedCents = (source: string) => metricValue(t, "cobro_transfers_matched_cents_total", { source });

/** Runs `action` and answers how much each read moved meanwhile. */
async function deltas<T extends Record<string, () => Promise<number>>>(reads: T, action: () => Promise<unknown>): Promise<{ [K in keyof T]: number }> {
  const before = Object.fromEntries(await Promise.all(Object.entries(reads).map(async ([key, readValue]) => [key, await readValue()])));
  await action();
  const after = Object.fromEntries(await Promise.all(Object.entries(reads).map(async ([key, readValue]) => [key, await readValue()])));
  return Object.fromEntries(Object.keys(reads).map((key) => [key, after[key] - before[key]])) as { [K in keyof T]: number };
}

let dni = 31_000_000;
const payer = () => cuilCandidatesOfDni(String(++dni))[0]!;

describe("charges created", () => {
  it("a create counts once under its kind and channel; a repeat of its referenceId (409) counts nothing", async () => {
    const { merchant, createCharge } = await sandboxIntegration(t);
    const body = chargeBody();
    const moved = await deltas({ standard: () => created("standard", "single"), draft: () => created("draft", "single") }, async () => {
      await createCharge(body);
      await createCharge(draftChargeBody());
      const repeat = await merchant.call("POST", "/payment-request", body);
      expect(repeat.status).toBe(409);
    });
    expect(moved).toEqual({ standard: 1, draft: 1 });
  });

  it("a bulk of 3 counts 3 under channel bulk; a refused bulk counts nothing", async () => {
    const { merchant } = await sandboxIntegration(t);
    const item = () => chargeBody({ amount: 42000, customer: { name: "Juan Pérez", taxDocument: payer() } });
    const moved = await deltas({ bulk: () => created("standard", "bulk"), single: () => created("standard", "single") }, async () => {
      const ok = await merchant.call("POST", "/payment-request/bulk", { paymentRequests: [item(), item(), item()] });
      expect(ok.status, ok.text).toBe(201);
      const again = await merchant.call("POST", "/payment-request/bulk", { paymentRequests: [item(), ok.json.paymentRequests[0]] });
      expect(again.status).not.toBe(201);
    });
    expect(moved).toEqual({ bulk: 3, single: 0 });
  });

  it("a checkout widget payment counts under kind checkout, channel widget; a Sandbox test charge under channel test", async () => {
    const w = await widgetIntegration(t);
    const moved = await deltas({ widget: () => created("checkout", "widget"), test: () => created("standard", "test") }, async () => {
      await w.createPayment();
      const test = await w.admin.call("POST", "/my-integration/test-charges", { amount: 1500 });
      expect(test.status, test.text).toBe(201);
    });
    expect(moved).toEqual({ widget: 1, test: 1 });
  });
});

describe("transfers received", () => {
  it("a simulated payment that matches counts matched and its cents; one to a paid charge counts unmatched with its reason; a forced provider failure nothing", async () => {
    const { admin, createCharge } = await sandboxIntegration(t);
    const charge = await createCharge(chargeBody({ amount: 1000 }));
    const moved = await deltas(
      {
        matched: () => received({ source: "simulation", result: "matched" }),
        alreadyPaid: () => received({ source: "simulation", result: "unmatched", reason: "already_paid" }),
        cents: () => matchedCents("simulation"),
      },
      async () => {
        expect((await admin.simulate({ cvu: charge.CVU, amount: 1000 })).json).toMatchObject({ conciliated: true });
        expect((await admin.simulate({ cvu: charge.CVU, amount: 250.5 })).json).toMatchObject({ conciliated: false, unmatchedReason: "already_paid" });
        expect((await admin.simulate({ cvu: charge.CVU, amount: 10, forcePspFailure: true })).status).toBe(200);
      },
    );
    expect(moved).toEqual({ matched: 1, alreadyPaid: 1, cents: 100_000 });
  });

  it("the bank feed counts under its source: matched, not again when sent again, and an unknown CVU as no_pending", async () => {
    const { createCharge } = await sandboxIntegration(t);
    const charge = await createCharge(chargeBody({ amount: 500 }));
    const transfer = { transactionId: `BNK-M-${charge.paymentRequestId}`, amount: 500, receivingCvu: charge.CVU, operatedAt: "2026-11-22T12:30:00-03:00" };
    const moved = await deltas(
      {
        matched: () => received({ source: "bank-feed", result: "matched" }),
        noPending: () => received({ source: "bank-feed", result: "unmatched", reason: "no_pending" }),
        cents: () => matchedCents("bank-feed"),
        simulated: () => matchedCents("simulation"),
      },
      async () => {
        expect((await feed(transfer)).json).toMatchObject({ duplicate: false, conciliated: true });
        expect((await feed(transfer)).json).toMatchObject({ duplicate: true });
        const unknown = { ...transfer, transactionId: `BNK-U-${charge.paymentRequestId}`, receivingCvu: "0000253200000099999995" };
        expect((await feed(unknown)).json).toMatchObject({ conciliated: false, unmatchedReason: "no_pending" });
      },
    );
    expect(moved).toEqual({ matched: 1, noPending: 1, cents: 50_000, simulated: 0 });
  });
});

async function feed(body: object) {
  const raw = JSON.stringify(body);
  const timestamp = Math.floor(t.clock.now().getTime() / 1000);
  const signature = `t=${timestamp},v1=${createHmac("sha256", SECRET).update(`${timestamp}.${raw}`).digest("hex")}`;
  return read(
    await fetch(`${t.adminUrl}/internal/bank-feed/transfers`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-bank-feed-signature": signature },
      body: raw,
    }),
  );
}
