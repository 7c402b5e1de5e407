// The time sweep gives the CVUs of the charges it closes back to the pool: a cvu-mode charge's CVU is free
// at once; a shared CVU counts the charges left on it, and is free once the last of them closes.
import { describe, expect, it } from "vitest";
import { serviceForFile } from "../helpers/service.ts";
import { chargeBody } from "../helpers/charges.ts";
import { sandboxIntegration } from "../helpers/sandbox-admin.ts";
import { ledgerViolations } from "../helpers/ledger-invariants.ts";

const t = serviceForFile({ start: new Date("2026-11-22T15:00:00Z") }); // 12:00 in Argentina

const cuil = (taxDocument: string, dueDate: string) =>
  chargeBody({ conciliationType: "cuil", customer: { name: "Pagador", taxDocument }, dueDates: [dueDate] });

describe("the time sweep and the CVU pool", () => {
  it("frees a closed cvu-mode charge's CVU, and a shared CVU once its last open charge closes", async () => {
    const { merchant: m, admin, createCharge: create } = await sandboxIntegration(t);
    const own = await create(chargeBody({ dueDates: ["2026-11-25"] }));
    const early = await create(cuil("20301234563", "2026-11-25"));
    const late = await create(cuil("20123456786", "2026-11-30"));
    expect(late.CVU).toBe(early.CVU);
    const pool = (cvu: string) => t.database.db.selectFrom("cvu_accounts").select(["holding", "open_charges"]).where("cvu", "=", cvu).executeTakeFirstOrThrow();
    expect(await pool(own.CVU)).toEqual({ holding: "exclusive", open_charges: 1 });

    await admin.advanceClock({ advanceTo: "2026-11-26T03:00:00Z" }); // 00:00 on the 26th in Argentina
    await m.renew();
    expect((await m.call("GET", `/payment-request/${own.referenceId}`)).json.state).toBe("overdue");
    expect((await m.call("GET", `/payment-request/${early.referenceId}`)).json.state).toBe("overdue");
    expect(await pool(own.CVU)).toEqual({ holding: "free", open_charges: 0 });
    expect(await pool(early.CVU)).toEqual({ holding: "shared", open_charges: 1 });

    await admin.advanceClock({ advanceTo: "2026-12-01T03:00:00Z" });
    await m.renew();
    expect((await m.call("GET", `/payment-request/${late.referenceId}`)).json.state).toBe("overdue");
    expect(await pool(late.CVU)).toEqual({ holding: "free", open_charges: 0 });
    const violations = await ledgerViolations(t.database.db);
    expect(violations.countersOff).toEqual([]);
    expect(violations.openWithoutHold).toEqual([]);
  });
});
