// What `npm run fuzz` (schemathesis) found, each pinned down over real HTTP against the whole service:
// a string with U+0000, a method on a concrete path that a templated one shadows, OAuth parameters the
// contract does not list, a URL with control characters, a sandbox clock past year 9999, a sign-in post
// that is not a form, an empty customer update.
import { beforeAll, describe, expect, it } from "vitest";
import { linkedMerchant, postJson, read, serviceForFile } from "../helpers/service.ts";
import { chargeBody, dueDateIn } from "../helpers/charges.ts";
import { sandboxAdmin, type SandboxAdmin } from "../helpers/sandbox-admin.ts";
import type { SandboxCredentials } from "../../domain/sandbox/sandbox-bootstrap.ts";

const t = serviceForFile();
let merchant: Awaited<ReturnType<typeof linkedMerchant>>;
let sandbox: SandboxCredentials;
let integrationAdmin: SandboxAdmin;

beforeAll(async () => {
  merchant = await linkedMerchant(t);
  sandbox = merchant.sandbox;
  integrationAdmin = await sandboxAdmin(t, sandbox);
});

const inDays = (days: number) => dueDateIn(t.clock, days);

const charge = (extra: object = {}) => chargeBody({ dueDates: [inDays(5)], ...extra });

describe("U+0000 in a request string", () => {
  it("is a 400 ValidationError naming the field, in a body, a metadata key and a query, never a 500", async () => {
    const inBody = await merchant.call("POST", "/payment-request", charge({ description: "Cuota\u0000 de diciembre" }));
    expect(inBody.status).toBe(400);
    expect(inBody.json).toMatchObject({
      code: "ValidationError",
      validationDetails: [{ field: "description", rule: "nulCharacter", message: "description must not contain the NUL character (U+0000)" }],
    });

    const inKey = await merchant.call("POST", "/payment-request", charge({ metadata: { "order\u0000": "A-1" } }));
    expect(inKey.status).toBe(400);
    expect(inKey.json.validationDetails).toEqual([
      { field: "metadata", rule: "nulCharacter", message: "metadata must not have a key with the NUL character (U+0000)" },
    ]);

    const inPath = await merchant.call("GET", "/payment-request/INV%00-0001");
    expect(inPath.status).toBe(400);
    expect(inPath.json.validationDetails).toEqual([
      { field: "referenceId", rule: "nulCharacter", message: "referenceId must not contain the NUL character (U+0000)" },
    ]);

    const inQuery = await read(await fetch(`${t.authUrl}/integration/oauth2/authorize?response_type=code&client_id=cli%00&redirect_uri=x`));
    expect(inQuery.status).toBe(400);
    expect(inQuery.json.validationDetails).toEqual([
      { field: "client_id", rule: "nulCharacter", message: "client_id must not contain the NUL character (U+0000)" },
    ]);
    expect(t.logLines.filter((line) => line.msg === "unexpected error")).toEqual([]);
  });
});

describe("a concrete path shadowed by a templated one", () => {
  it("answers 405 with its own methods: /payment-request/bulk is not a referenceId", async () => {
    for (const method of ["GET", "OPTIONS", "PATCH"]) {
      const answer = await merchant.call(method, "/payment-request/bulk");
      expect(answer.status, method).toBe(405);
      expect(answer.headers.get("allow")).toBe("POST");
    }
    expect((await merchant.call("GET", "/payment-request/INV-NOT-THERE")).status).toBe(404);
  });
});

describe("the authorization endpoint", () => {
  it("ignores query parameters it does not list (RFC 6749 §3.1: an OpenID Connect client's nonce)", async () => {
    const url = new URL("/integration/oauth2/authorize", t.authUrl);
    for (const [name, value] of Object.entries({
      response_type: "code",
      client_id: sandbox.integration.clientId,
      redirect_uri: sandbox.integration.redirectUri,
      state: "s-1",
      nonce: "n-1",
      prompt: "login",
    })) {
      url.searchParams.set(name, value);
    }
    const page = await fetch(url);
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toMatch(/^text\/html/);
  });

  it("answers a sign-in post that is not a form with the JSON ValidationError the contract now lists", async () => {
    const answer = await read(await postJson(`${t.authUrl}/integration/oauth2/complete-login`, { email: "x@example.com" }));
    expect(answer.status).toBe(400);
    expect(answer.headers.get("content-type")).toMatch(/^application\/json/);
    expect(answer.json.code).toBe("ValidationError");
  });
});

describe("format: uri", () => {
  it("refuses control characters (RFC 3986), where the fast check let them into a stored logo URL", async () => {
    const patch = await integrationAdmin.call("PATCH", "/my-integration", { logoUrl: "https://\u0084" });
    expect(patch.status).toBe(400);
    expect(patch.json.validationDetails).toEqual([{ field: "logoUrl", rule: "format", format: "uri", message: "logoUrl must be a valid uri" }]);
  });
});

describe("the sandbox clock", () => {
  it("refuses to go past 9999-12-31T23:59:59Z with a 400 naming the field, not a 500", async () => {
    const admin = await sandboxAdmin(t, (await linkedMerchant(t)).sandbox); // an integration of its own: its clock ends in 9999
    const huge = await admin.advanceClock({ advanceBy: "P021DT15868382947985358006352H43S" });
    expect(huge.status).toBe(400);
    expect(huge.json).toMatchObject({
      code: "ValidationError",
      validationDetails: [{ field: "advanceBy", rule: "outOfRange", message: "advanceBy would move the clock past 9999-12-31T23:59:59.000Z" }],
    });
    const far = await admin.advanceClock({ advanceTo: "9999-12-31T23:59:59Z" });
    expect(far.status).toBe(200);
    expect(far.json.today).toBe("9999-12-31");
  });
});

describe("an empty customer update", () => {
  it("is refused by the contract's minProperties", async () => {
    const created = await merchant.call(
      "POST",
      "/payment-request",
      charge({ conciliationType: "cuil", customer: { name: "Juan Pérez", taxDocument: "20301234563" } }),
    );
    expect(created.status, JSON.stringify(created.json)).toBe(201);
    const empty = await merchant.call("PATCH", `/payment-request/${created.json.referenceId}/customer`, {});
    expect(empty.status).toBe(400);
    expect(empty.json).toMatchObject({
      code: "ValidationError",
      validationDetails: [{ field: "body", rule: "minProperties", limit: 1, message: "body must have at least 1 fields" }],
    });
  });
});
