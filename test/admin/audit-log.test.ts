// Reading the audit logs over real HTTP: the platform's (every entry) and an integration's (only its own
// admins' actions), their filters and paging, and every documented refusal.
import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { read, serviceForFile } from "../helpers/service.ts";
import { signedInAdmin, type SignedInAdmin } from "../helpers/sandbox-admin.ts";
import type { SandboxCredentials } from "../../domain/sandbox/sandbox-bootstrap.ts";

const t = serviceForFile({ start: new Date("2026-11-20T12:59:00Z") });
const generalError = (code: string) => ({ code, message: expect.any(String), id: expect.any(String) });

let setA: SandboxCredentials;
let setB: SandboxCredentials;
let platform: SignedInAdmin;
let adminA: SignedInAdmin;
let adminB: SignedInAdmin;
let integrationA: string;
let integrationB: string;
let adminAId: string;
let missingUrlId: string;

const idOf = async (email: string) => (await t.database.db.selectFrom("admin_users").select("id").where("email", "=", email).executeTakeFirstOrThrow()).id;
const integrationOf = async (clientId: string) =>
  (await t.database.db.selectFrom("integration_clients").select("id").where("provider_client_id", "=", clientId).executeTakeFirstOrThrow()).id;

beforeAll(async () => {
  setA = await t.sandbox();
  setB = await t.sandbox();
  platform = await signedInAdmin(t, setA.platformAdmin);
  adminA = await signedInAdmin(t, setA.integrationAdmin);
  adminB = await signedInAdmin(t, setB.integrationAdmin);
  integrationA = await integrationOf(setA.integration.clientId);
  integrationB = await integrationOf(setB.integration.clientId);
  adminAId = await idOf(setA.integrationAdmin.email);
  // One action every ten minutes (the idTokens last an hour), from 13:00: A's offer, A's subscriptions, A's refused URL update, B's offer.
  t.clock.set(new Date("2026-11-20T13:00:00Z"));
  expect((await adminA.call("PUT", "/my-integration/offer", { percentage: 1.5, fixedAmount: 25 })).status).toBe(200);
  t.clock.set(new Date("2026-11-20T13:10:00Z"));
  expect((await adminA.call("PUT", "/my-integration/webhook-subscriptions", { enabledEvents: ["payment.unmatched"] })).status).toBe(200);
  t.clock.set(new Date("2026-11-20T13:20:00Z"));
  missingUrlId = randomUUID();
  expect((await adminA.call("PUT", `/my-integration/urls/${missingUrlId}`, { url: "https://a.example.com/hook" })).status).toBe(404);
  t.clock.set(new Date("2026-11-20T13:30:00Z"));
  expect((await adminB.call("PUT", "/my-integration/offer", { percentage: 2, fixedAmount: 10 })).status).toBe(200);
});

describe("GET /my-integration/audit-log", () => {
  it("lists only the integration's own admins' actions, newest first, sign-in included", async () => {
    const listed = await adminA.call("GET", "/my-integration/audit-log");
    expect(listed.status).toBe(200);
    expect(listed.json).toMatchObject({ total: 4, limit: 20, offset: 0 });
    expect(listed.json.items.map((entry: { operation: string }) => entry.operation)).toEqual([
      "updateClientUrl",
      "replaceWebhookSubscriptions",
      "replaceOffer",
      "adminLogin",
    ]);
    for (const entry of listed.json.items) {
      expect(entry.integrationClientId).toBe(integrationA);
      expect(entry.actor).toEqual({ kind: "integration_admin", adminUserId: adminAId, adminEmail: setA.integrationAdmin.email });
    }
    expect(listed.json.items[2]).toMatchObject({
      occurredAt: "2026-11-20T13:00:00.000Z",
      api: "admin",
      method: "PUT",
      route: "/my-integration/offer",
      targets: {},
      fields: ["fixedAmount", "percentage"],
      changes: { percentage: 1.5, fixedAmount: 25 },
      outcome: "succeeded",
      status: 200,
      clientAddress: expect.stringContaining("127.0.0.1"),
      requestId: expect.any(String),
    });
    expect(listed.json.items[0]).toMatchObject({
      outcome: "refused",
      status: 404,
      errorCode: "ClientUrlNotFoundError",
      targets: { clientUrlId: missingUrlId },
    });
  });

  it("filters by time range, operation, actor, target and outcome, and pages", async () => {
    const operations = async (query: string) => {
      const listed = await adminA.call("GET", `/my-integration/audit-log?${query}`);
      expect(listed.status, listed.text).toBe(200);
      return { total: listed.json.total, operations: listed.json.items.map((entry: { operation: string }) => entry.operation) };
    };
    expect(await operations("from=2026-11-20T13:05:00Z&to=2026-11-20T13:20:00Z")).toEqual({ total: 1, operations: ["replaceWebhookSubscriptions"] });
    expect(await operations("from=2026-11-20T13:10:00Z")).toEqual({ total: 2, operations: ["updateClientUrl", "replaceWebhookSubscriptions"] });
    expect(await operations("operation=replaceOffer")).toEqual({ total: 1, operations: ["replaceOffer"] });
    expect(await operations(`targetId=${missingUrlId}`)).toEqual({ total: 1, operations: ["updateClientUrl"] });
    expect(await operations("outcome=refused")).toEqual({ total: 1, operations: ["updateClientUrl"] });
    expect(await operations(`actorId=${adminAId}&outcome=succeeded`)).toEqual({
      total: 3,
      operations: ["replaceWebhookSubscriptions", "replaceOffer", "adminLogin"],
    });
    expect(await operations(`actorId=${await idOf(setB.integrationAdmin.email)}`)).toEqual({ total: 0, operations: [] });
    expect(await operations("limit=2&offset=1")).toEqual({ total: 4, operations: ["replaceWebhookSubscriptions", "replaceOffer"] });
    expect(await operations("limit=2&offset=4")).toEqual({ total: 4, operations: [] });
  });
});

describe("GET /integration-admin/audit-log", () => {
  it("lists every integration's entries, and one integration's with integrationClientId", async () => {
    const all = await platform.call("GET", "/integration-admin/audit-log?operation=replaceOffer");
    expect(all.status).toBe(200);
    expect(all.json.items.map((entry: { integrationClientId: string }) => entry.integrationClientId)).toEqual([integrationB, integrationA]);
    const onlyB = await platform.call("GET", `/integration-admin/audit-log?integrationClientId=${integrationB}`);
    expect(onlyB.json.items.map((entry: { operation: string }) => entry.operation)).toEqual(["replaceOffer", "adminLogin"]);
    expect(onlyB.json.total).toBe(2);
    const signIns = await platform.call("GET", `/integration-admin/audit-log?operation=adminLogin&actorId=${await idOf(setA.platformAdmin.email)}`);
    expect(signIns.json.items).toEqual([
      expect.objectContaining({
        api: "auth",
        route: "/integration/admin/login",
        actor: { kind: "platform_admin", adminUserId: await idOf(setA.platformAdmin.email), adminEmail: setA.platformAdmin.email },
        fields: ["email", "password"],
        changes: {},
        outcome: "succeeded",
      }),
    ]);
    expect(signIns.json.items[0]).not.toHaveProperty("integrationClientId");
  });

  it("records the status each call answered: a merchant account's provisioning 201 created, then 200 unchanged", async () => {
    const providerMerchantId = `wallet-${randomUUID()}`;
    const body = {
      email: `${providerMerchantId}@example.com`,
      legalName: "La Espiga S.R.L.",
      cuit: "30712345671",
      tradeName: "Panadería La Espiga",
      status: "active",
    };
    const answers = [];
    for (let call = 0; call < 2; call++) answers.push(await platform.call("PUT", `/integration-admin/merchant-accounts/${providerMerchantId}`, body));
    expect(answers.map((answer) => answer.status)).toEqual([201, 200]);
    const listed = await platform.call("GET", "/integration-admin/audit-log?operation=provisionMerchantAccount");
    const entries = listed.json.items.filter((entry: { targets: Record<string, string> }) => entry.targets.providerMerchantId === providerMerchantId);
    expect(entries.map((entry: { requestId: string; status: number }) => [entry.requestId, entry.status])).toEqual(
      answers.reverse().map((answer) => [answer.headers.get("x-request-id"), answer.status]),
    );
  });
});

describe("refusals of both audit logs", () => {
  const paths = ["/my-integration/audit-log", "/integration-admin/audit-log"] as const;

  it("400 ValidationError for from after to, an unknown outcome, a malformed actorId or operation", async () => {
    for (const [path, caller] of [
      [paths[0], () => adminA],
      [paths[1], () => platform],
    ] as const) {
      for (const [query, field] of [
        ["from=2026-11-21T00:00:00Z&to=2026-11-20T00:00:00Z", "from"],
        ["outcome=maybe", "outcome"],
        ["actorId=not-a-uuid", "actorId"],
        ["operation=drop%20table", "operation"],
        ["limit=0", "limit"],
      ] as const) {
        const refused = await caller().call("GET", `${path}?${query}`);
        expect(refused.status, `${path}?${query}`).toBe(400);
        expect(refused.json).toEqual({ code: "ValidationError", message: expect.any(String), id: expect.any(String), validationDetails: expect.any(Array) });
        expect(refused.json.validationDetails[0].field).toBe(field);
      }
    }
  });

  it("401 UnauthorizedError without an admin token", async () => {
    for (const path of paths) {
      const refused = await read(await fetch(`${t.adminUrl}${path}`));
      expect(refused.status).toBe(401);
      expect(refused.json).toEqual(generalError("UnauthorizedError"));
    }
  });

  it("403 ForbiddenError for the other role, PasswordChangeRequiredError on a temporary password", async () => {
    const wrongRole = [await platform.call("GET", paths[0]), await adminA.call("GET", paths[1])];
    for (const refused of wrongRole) {
      expect(refused.status).toBe(403);
      expect(refused.json).toEqual(generalError("ForbiddenError"));
    }
    const set = await t.sandbox();
    await t.database.db
      .updateTable("admin_users")
      .set({ password_change_required: true })
      .where("email", "in", [set.platformAdmin.email, set.integrationAdmin.email])
      .execute();
    const temporary = [
      await (await signedInAdmin(t, set.integrationAdmin)).call("GET", paths[0]),
      await (await signedInAdmin(t, set.platformAdmin)).call("GET", paths[1]),
    ];
    for (const refused of temporary) {
      expect(refused.status).toBe(403);
      expect(refused.json).toEqual(generalError("PasswordChangeRequiredError"));
    }
  });
});
