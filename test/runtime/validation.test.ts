// Requests that break the contract get the seed's ValidationError shape, whatever is wrong with them.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApi, type TestApi } from "../helpers/api.ts";
import { draftChargeBody } from "../helpers/charges.ts";
import { read } from "../helpers/service.ts";
import { integrationHandlers } from "../../handlers/integration/index.ts";
import { notImplemented } from "../../handlers/handler-types.ts";
import { anonymousCaller, type IntegrationCaller } from "../../domain/sign-in/callers.ts";

let api: TestApi;

beforeAll(async () => {
  api = await startTestApi<IntegrationCaller>("integration", {
    // Operations without behaviour answer 501 after validation: a 501 proves the request passed it.
    handlers: { ...integrationHandlers, createPaymentRequest: notImplemented, getMe: notImplemented },
    anonymous: anonymousCaller,
    // A stand-in for the token check: these tests are about what happens after it.
    security: {
      MerchantBearer: async ({ headers }) =>
        headers.authorization === "Bearer test"
          ? { caller: anonymousCaller }
          : { refused: new (await import("../../domain/errors.ts")).DomainError("InvalidMerchantToken", "Unauthorized") },
    },
  });
});
afterAll(() => api.close());

const validCharge = draftChargeBody({ referenceId: "INV-2026-000123", description: "Cuota de diciembre" });

async function post(path: string, body: unknown, headers: Record<string, string> = {}) {
  return read(
    await fetch(`${api.url}${path}`, {
      method: "POST",
      headers: { authorization: "Bearer test", "content-type": "application/json", ...headers },
      body: typeof body === "string" ? body : JSON.stringify(body),
    }),
  );
}

function expectValidationError(result: { status: number; json: Record<string, unknown> }, field: string) {
  expect(result.status).toBe(400);
  expect(result.json).toMatchObject({ code: "ValidationError", id: expect.any(String) });
  const details = result.json.validationDetails as Array<{ field: string; message: string }>;
  expect(Array.isArray(details)).toBe(true);
  expect(Object.keys(result.json).sort()).toEqual(["code", "id", "message", "validationDetails"]);
  expect(result.json.message).toBe(details[0]!.message);
  expect(details.map((d) => d.field)).toContain(field);
}

describe("request validation", () => {
  it("names a missing field", async () => {
    const { customer: _, ...body } = validCharge;
    expectValidationError(await post("/payment-request", body), "customer");
  });

  it("names a field of the wrong type", async () => {
    expectValidationError(await post("/payment-request", { ...validCharge, amount: "mil" }), "amount");
  });

  it("refuses a field the contract does not accept, at any depth", async () => {
    const result = await post("/payment-request", { ...validCharge, customer: { name: "Ana", nickname: "A" } });
    expectValidationError(result, "customer.nickname");
    const detail = (result.json.validationDetails as Array<{ field: string; message: string }>).find((d) => d.field === "customer.nickname");
    expect(detail!.message).toMatch(/not accepted/);
  });

  it("lists every problem, with array positions", async () => {
    const result = await post("/payment-request", { ...validCharge, referenceId: "x", dueDates: ["mañana"], amount: -5 });
    const fields = (result.json.validationDetails as Array<{ field: string }>).map((d) => d.field);
    expect(fields).toEqual(expect.arrayContaining(["referenceId", "dueDates[0]", "amount"]));
  });

  it("treats null in an optional create field as absent", async () => {
    const result = await post("/payment-request", {
      ...validCharge,
      amount: null,
      surcharge: null,
      conciliationType: null,
      customer: { name: "Juan Pérez", email: null, phoneNumber: null, taxDocument: null },
    });
    expect(result.status).toBe(501);
  });

  it("refuses null in a required field", async () => {
    expectValidationError(await post("/payment-request", { ...validCharge, description: null }), "description");
  });

  it("answers malformed JSON with a ValidationError", async () => {
    expectValidationError(await post("/payment-request", '{"referenceId": "INV-2026', {}), "body");
  });

  it("answers a wrong content type with a ValidationError", async () => {
    const result = await post("/payment-request", "referenceId=INV-2026-000123", { "content-type": "text/plain" });
    expectValidationError(result, "body");
    expect(result.json.message).toMatch(/application\/json/);
  });

  it("refuses a body over the limit with 413 in the general shape", async () => {
    const result = await post("/payment-request", { ...validCharge, description: "x".repeat(2 * 1024 * 1024) });
    expect(result.status).toBe(413);
    expect(result.json).toEqual({ code: "PayloadTooLarge", message: expect.any(String), id: expect.any(String) });
  });

  it("validates query parameters", async () => {
    const response = await fetch(`${api.url}/payment-request?limit=0`, { headers: { authorization: "Bearer test" } });
    expectValidationError({ status: response.status, json: (await response.json()) as Record<string, unknown> }, "limit");
  });
});

describe("routing", () => {
  it("answers an unknown route with 404 in the general shape", async () => {
    const response = await fetch(`${api.url}/no-such-thing`, { headers: { authorization: "Bearer test" } });
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({ code: "RouteNotFound", message: expect.any(String), id: expect.any(String) });
  });

  it("answers a wrong method with 405 and Allow", async () => {
    const response = await fetch(`${api.url}/payment-request`, { method: "DELETE", headers: { authorization: "Bearer test" } });
    expect(response.status).toBe(405);
    expect(response.headers.get("allow")).toBe("GET, POST");
    expect(await response.json()).toMatchObject({ code: "MethodNotAllowed" });
  });

  it("answers the same routes under the /integration prefix", async () => {
    const result = await post("/integration/payment-request", { ...validCharge, amount: "mil" });
    expectValidationError(result, "amount");
  });

  it("answers an operation without behaviour with 501 in the general shape", async () => {
    const response = await fetch(`${api.url}/me`, { headers: { authorization: "Bearer test" } });
    expect(response.status).toBe(501);
    expect(await response.json()).toEqual({ code: "NotImplemented", message: expect.stringContaining("getMe"), id: expect.any(String) });
  });

  it("checks the token before the body", async () => {
    const response = await fetch(`${api.url}/payment-request`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
    expect(response.status).toBe(401);
    expect(response.headers.get("content-type")).toMatch(/^text\/plain/);
    expect(await response.text()).toBe("Unauthorized");
  });
});
