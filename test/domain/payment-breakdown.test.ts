// The split of a payment: integer cents, each commission rounded to the nearest cent (half up), the
// parts always adding up to the gross.
import { describe, expect, it } from "vitest";
import { splitPayment } from "../../domain/earnings/payment-breakdown.ts";

describe("splitPayment", () => {
  it("takes the integration's percentage plus its fixed fee, then the platform's percentage, and leaves the rest to the merchant", () => {
    // $1.000: 1,5 % = $15 + $25 fixed; 0,8 % = $8; the merchant keeps $952.
    expect(splitPayment(100_000, { integrationPercentage: "1.50", integrationFixedCents: 2_500, servicePercentage: "0.80" })).toEqual({
      integrationCommissionCents: 4_000,
      serviceCommissionCents: 800,
      merchantNetCents: 95_200,
    });
  });

  it("rounds each commission to the nearest cent, half a cent up", () => {
    // 1,5 % of $0,33 is 0,495 cents → 0; of $0,35 is 0,525 → 1; 2,5 % of $0,20 is exactly 0,5 → 1.
    expect(splitPayment(33, { integrationPercentage: "1.50", integrationFixedCents: 0, servicePercentage: null }).integrationCommissionCents).toBe(0);
    expect(splitPayment(35, { integrationPercentage: "1.50", integrationFixedCents: 0, servicePercentage: null }).integrationCommissionCents).toBe(1);
    expect(splitPayment(20, { integrationPercentage: "0", integrationFixedCents: 0, servicePercentage: "2.50" }).serviceCommissionCents).toBe(1);
  });

  it("never takes more than the gross: the fixed fee is capped, and the platform's share by what is left", () => {
    expect(splitPayment(1_000, { integrationPercentage: "0", integrationFixedCents: 2_500, servicePercentage: "10" })).toEqual({
      integrationCommissionCents: 1_000,
      serviceCommissionCents: 0,
      merchantNetCents: 0,
    });
    expect(splitPayment(1_000, { integrationPercentage: "70", integrationFixedCents: 0, servicePercentage: "50" })).toEqual({
      integrationCommissionCents: 700,
      serviceCommissionCents: 300,
      merchantNetCents: 0,
    });
  });

  it("adds up to the gross for every amount and percentage tried", () => {
    const percentages = ["0", "0.01", "0.33", "1.50", "2.99", "12.34", "50", "99.99", "100"];
    for (let gross = 0; gross <= 5_000; gross += 37) {
      for (const integrationPercentage of percentages) {
        for (const servicePercentage of [null, ...percentages]) {
          for (const integrationFixedCents of [0, 1, 250]) {
            const split = splitPayment(gross, { integrationPercentage, integrationFixedCents, servicePercentage });
            expect(split.integrationCommissionCents + split.serviceCommissionCents + split.merchantNetCents).toBe(gross);
            expect(Math.min(split.integrationCommissionCents, split.serviceCommissionCents, split.merchantNetCents)).toBeGreaterThanOrEqual(0);
          }
        }
      }
    }
  });
});
