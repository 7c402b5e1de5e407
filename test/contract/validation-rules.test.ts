// A 400 ValidationError names, for each field, the rule it broke (`rule`, with `limit`, `format` or
// `fields`), so that a screen words its own message rather than translating `message`; and a body that
// takes exactly one of two fields gets one problem that says so, not each alternative's complaints.
import { beforeAll, describe, expect, it } from "vitest";
import { linkedMerchant, serviceForFile } from "../helpers/service.ts";
import { sandboxAdmin, type SandboxAdmin } from "../helpers/sandbox-admin.ts";

const t = serviceForFile();
let admin: SandboxAdmin;

beforeAll(async () => {
  admin = await sandboxAdmin(t, (await linkedMerchant(t)).sandbox);
});

describe("a body that takes exactly one of advanceTo and advanceBy (the Sandbox clock)", () => {
  const exactlyOne = {
    field: "body",
    rule: "exactlyOneOf",
    fields: ["advanceTo", "advanceBy"],
    message: "body must have exactly one of advanceTo, advanceBy",
  };

  it("answers an empty body with that one problem, not with both fields required", async () => {
    const empty = await admin.advanceClock({});
    expect(empty.status).toBe(400);
    expect(empty.json).toEqual({ code: "ValidationError", message: exactlyOne.message, id: expect.any(String), validationDetails: [exactlyOne] });
  });

  it("answers both fields with that one problem", async () => {
    const both = await admin.advanceClock({ advanceTo: "2030-01-01T00:00:00Z", advanceBy: "P1D" });
    expect(both.status).toBe(400);
    expect(both.json.validationDetails).toEqual([exactlyOne]);
  });

  it("answers one field with a bad value with that field's problems alone", async () => {
    const bad = await admin.advanceClock({ advanceBy: "1 día" });
    expect(bad.status).toBe(400);
    const details = bad.json.validationDetails as Array<{ field: string; rule: string }>;
    expect(details.length).toBeGreaterThan(0);
    expect(details.every((detail) => detail.field === "advanceBy")).toBe(true);
    expect(details.map((detail) => detail.rule)).toContain("pattern");
  });

  it("still names a field that no alternative takes", async () => {
    const extra = await admin.advanceClock({ advanceBy: "P1D", speed: 2 } as never);
    expect(extra.status).toBe(400);
    expect(extra.json.validationDetails).toEqual([{ field: "speed", rule: "notAccepted", message: "speed: field not accepted" }]);
  });

  it("moves the clock with one good field", async () => {
    expect((await admin.advanceClock({ advanceBy: "PT1H" })).status).toBe(200);
  });
});

describe("the rule and its bound", () => {
  it("gives a missing field `required`, a long text `maxLength` with its limit and a bad URL `format` with its format", async () => {
    const tenant = await admin.call("PATCH", "/my-integration", { name: "x".repeat(101), logoUrl: "not a url" });
    expect(tenant.status).toBe(400);
    expect(tenant.json.validationDetails).toEqual(
      expect.arrayContaining([
        { field: "name", rule: "maxLength", limit: 100, message: "name must have at most 100 characters" },
        expect.objectContaining({ field: "logoUrl", rule: "format", format: "uri" }),
      ]),
    );
    const url = await admin.call("POST", "/my-integration/urls", { urlType: "webhook" });
    expect(url.status).toBe(400);
    expect(url.json.validationDetails).toEqual([{ field: "url", rule: "required", message: "url is required" }]);
  });

  it("gives the https rule to a URL the contract's pattern refuses for its scheme, and a date order a rule of its own", async () => {
    const http = await admin.call("POST", "/my-integration/urls", { urlType: "webhook", url: "http://example.com/cobro" });
    expect(http.status).toBe(400);
    expect(http.json.validationDetails).toEqual([
      { field: "url", rule: "https", message: "url must be an https URL (http:// only on loopback hosts, in the Sandbox)" },
    ]);
    const other = await admin.call("POST", "/my-integration/urls", { urlType: "redirect_uri", url: "ftp://example.com/callback" });
    expect(other.json.validationDetails).toEqual([expect.objectContaining({ field: "url", rule: "https" })]);
    const order = await admin.call("GET", "/my-integration/earnings?startDate=2026-12-10&endDate=2026-12-01");
    expect(order.status).toBe(400);
    expect(order.json.validationDetails).toEqual([
      { field: "startDate", rule: "dateOrder", fields: ["endDate"], message: "startDate must not be after endDate" },
    ]);
    const long = await admin.call("GET", "/my-integration/earnings?startDate=2025-01-01&endDate=2026-06-30");
    expect(long.status).toBe(400);
    expect(long.json.validationDetails).toEqual([expect.objectContaining({ field: "endDate", rule: "outOfRange", limit: 366 })]);
  });
});
