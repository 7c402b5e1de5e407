// Finding a charge of the integration (GET /my-integration/payment-requests): open or not, of one merchant
// account, and by a text in its referenceId or its payer's name, email or tax document. The portal uses it
// to find the charge an unmatched payment was meant for.
import { describe, expect, it } from "vitest";
import { chargeBody } from "../helpers/charges.ts";
import { sandboxIntegration } from "../helpers/sandbox-admin.ts";
import { serviceForFile } from "../helpers/service.ts";
import { uniqueRef } from "../helpers/unique-ref.ts";

const t = serviceForFile({ start: new Date("2026-11-22T15:00:00Z") });

const referencesOf = (page: { items: Array<{ integrationReferenceId: string | null }> }) => page.items.map((item) => item.integrationReferenceId).sort();

describe("searching the integration's charges", () => {
  it("filters by open, by merchant account and by a text of the reference or the payer; all given filters hold", async () => {
    const { merchant, admin, createCharge } = await sandboxIntegration(t);
    const tag = uniqueRef("S").toLowerCase();
    const open = await createCharge(chargeBody({ referenceId: `INV-${tag}-1`, customer: { name: "Marta Gómez", email: "marta@example.com" } }));
    const canceled = await createCharge(chargeBody({ referenceId: `INV-${tag}-2`, customer: { name: "Marta Gómez" } }));
    expect((await merchant.call("POST", `/payment-request/${canceled.referenceId}/cancel`)).status).toBe(200);
    // Reconciled by CUIL: the charge keeps its payer's tax document.
    const other = await createCharge(
      chargeBody({ referenceId: `OTHER-${tag}`, conciliationType: "cuil", customer: { name: "Pedro Ruiz", taxDocument: "20301234563" } }),
    );
    const merchantUserId = (await merchant.call("GET", "/me")).json.merchantUserId as string;

    const search = async (query: string) => {
      const answer = await admin.call("GET", `/my-integration/payment-requests?${query}`);
      expect(answer.status, JSON.stringify(answer.json)).toBe(200);
      return answer.json;
    };
    // The reference, letter case ignored.
    expect(referencesOf(await search(`search=${tag.toUpperCase()}`))).toEqual([open.referenceId, canceled.referenceId, other.referenceId].sort());
    // Open only: the canceled one left out.
    expect(referencesOf(await search(`search=inv-${tag}&open=true`))).toEqual([open.referenceId]);
    expect(referencesOf(await search(`search=inv-${tag}&open=false`))).toEqual([canceled.referenceId]);
    // The payer's name, email and tax document.
    expect(referencesOf(await search(`search=${encodeURIComponent("marta gómez")}&merchantUserId=${merchantUserId}`))).toEqual(
      [open.referenceId, canceled.referenceId].sort(),
    );
    expect(referencesOf(await search("search=marta%40example"))).toContain(open.referenceId);
    expect(referencesOf(await search(`search=2030123456&merchantUserId=${merchantUserId}`))).toContain(other.referenceId);
    // One merchant account: the integration's other one (its Sandbox merchant) has none of these.
    const users = (await admin.call("GET", "/my-integration/users")).json.items as Array<{ userId: string }>;
    const otherUserId = users.map((user) => user.userId).find((userId) => userId !== merchantUserId)!;
    expect(referencesOf(await search(`search=${tag}&merchantUserId=${otherUserId}`))).toEqual([]);
    expect(referencesOf(await search(`search=${tag}&merchantUserId=${merchantUserId}`))).toHaveLength(3);
    // A merchant account of no charge of the integration: nothing.
    expect((await search(`merchantUserId=${crypto.randomUUID()}`)).total).toBe(0);
  });

  it("refuses an empty search text and a merchant account that is not a UUID with the documented 400", async () => {
    const { admin } = await sandboxIntegration(t);
    for (const query of ["search=", "merchantUserId=not-a-uuid", "open=perhaps"]) {
      const answer = await admin.call("GET", `/my-integration/payment-requests?${query}`);
      expect(answer.status, query).toBe(400);
      expect(answer.json, query).toMatchObject({ code: "ValidationError", validationDetails: [expect.objectContaining({ field: query.split("=")[0] })] });
    }
  });
});
