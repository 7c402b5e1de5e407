// Secrets that travel in a path are redacted in the request's log line like secrets in a query: the payer
// page's token opens the page and can ask for a payment confirmation.
import { describe, expect, it } from "vitest";
import { redactedUrl } from "../../runtime/logger.ts";
import { chargeBody, payerPageToken } from "../helpers/charges.ts";
import { linkedMerchant, serviceForFile } from "../helpers/service.ts";

const t = serviceForFile({ start: new Date("2026-11-22T15:00:00Z") });

describe("log redaction of path secrets", () => {
  it("the payer page's token never reaches a log line", async () => {
    const { call } = await linkedMerchant(t);
    const created = await call("POST", "/payment-request", chargeBody());
    expect(created.status).toBe(201);
    const token = await payerPageToken(t, created.json.paymentRequestId);
    expect((await fetch(`${t.integrationUrl}/p/${token}`)).status).toBe(200);
    expect((await fetch(`${t.integrationUrl}/integration/p/${token}`)).status).toBe(200);
    expect((await fetch(`${t.integrationUrl}/p/${token}/payment-confirmation`, { method: "POST" })).status).toBeLessThan(500);
    await new Promise((resolve) => setImmediate(resolve));
    const pageLines = t.logLines.filter((line) => String((line.req as { url?: string } | undefined)?.url ?? "").includes("/p/"));
    expect(pageLines.length).toBeGreaterThanOrEqual(3);
    expect(JSON.stringify(t.logLines)).not.toContain(token);
    expect(pageLines.map((line) => (line.req as { url: string }).url)).toContain("/p/[redacted]");
  });

  it("redacts the token under both prefixes, with or without a trailing part, and leaves other paths alone", () => {
    expect(redactedUrl("/p/abc123")).toBe("/p/[redacted]");
    expect(redactedUrl("/p/abc123/payment-confirmation")).toBe("/p/[redacted]/payment-confirmation");
    expect(redactedUrl("/integration/p/abc123?x=1")).toBe("/integration/p/[redacted]?x=1");
    expect(redactedUrl("/payment-request/REF-12345")).toBe("/payment-request/REF-12345");
    expect(redactedUrl("/reset?token=abc")).toBe("/reset?token=[redacted]");
  });
});
