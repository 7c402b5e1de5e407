// Free text shown to payers is accepted as sent, but a value that carries a direction embedding or
// override is shown as a Unicode isolate, so it cannot reorder Cobro's sentence around it: on the payer
// page, in emails and in chat messages alike.
import { describe, expect, it } from "vitest";
import { isolatedForDisplay } from "../../domain/display-text.ts";
import { messageFacts } from "../../domain/notifications/content.ts";
import { chargeBody, payerPageToken } from "../helpers/charges.ts";
import { linkedMerchant, serviceForFile } from "../helpers/service.ts";

const t = serviceForFile({ start: new Date("2026-11-22T15:00:00Z") });

const RLO = "\u202E";
const SPOOFED = `Cuota ${RLO}0001 $ raugap on`;

describe("direction controls in text shown to payers", () => {
  it("plain text is shown as it is, a value with an embedding or override as an isolate", () => {
    expect(isolatedForDisplay("Cuota de noviembre")).toBe("Cuota de noviembre");
    expect(isolatedForDisplay("שלום עולם")).toBe("שלום עולם");
    for (const control of ["\u202A", "\u202B", "\u202C", "\u202D", "\u202E", "\u2066", "\u2067", "\u2068", "\u2069"]) {
      expect(isolatedForDisplay(`a${control}b`)).toBe(`\u2068a${control}b\u2069`);
    }
  });

  it("an email's or chat message's facts isolate the description, the payer's name and the trade name", () => {
    const facts = messageFacts({
      kind: "initial",
      at: new Date("2026-11-22T15:00:00Z"),
      charge: {
        amount_cents: 100_000,
        surcharge_cents: 0,
        paid_cents: 0,
        first_due_at: new Date("2026-12-11T03:00:00Z"),
        due_dates: ["2026-12-10"],
        description: SPOOFED,
        customer_name: `Juan${RLO}`,
      },
      merchant: { fantasyName: `Tienda${RLO}`, accountHolderName: "Tienda S.A." },
      cvu: "0000003100000000000001",
      payerPageUrl: "https://cobro.test/p/x",
    });
    expect(facts.description).toBe(`\u2068${SPOOFED}\u2069`);
    expect(facts.customerName).toBe(`\u2068Juan${RLO}\u2069`);
    expect(facts.tradeName).toBe(`\u2068Tienda${RLO}\u2069`);
  });

  it("the payer page shows such a description isolated", async () => {
    const { call } = await linkedMerchant(t);
    const created = await call("POST", "/payment-request", chargeBody({ description: SPOOFED }));
    expect(created.status).toBe(201);
    expect(created.json.description).toBe(SPOOFED); // stored and returned as sent
    const token = await payerPageToken(t, created.json.paymentRequestId);
    const page = await (await fetch(`${t.integrationUrl}/p/${token}`)).text();
    expect(page).toContain(`<h1>\u2068${SPOOFED}\u2069</h1>`);
  });
});
