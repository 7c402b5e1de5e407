// Every method and path of the seed's endpoint tables (and of the paths the contract issue fixed where the
// seed leaves them open) is in the published documents, with every documented status and body shape.
import { describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import YAML from "yaml";

type Api = "integration" | "auth" | "admin";
type Document = {
  paths: Record<string, Record<string, { operationId?: string; responses: Record<string, { content?: Record<string, { schema?: unknown }> }> }>>;
};

const documents: Record<Api, Document> = {
  integration: YAML.parse(readFileSync("generated/openapi/integration.yaml", "utf8")),
  auth: YAML.parse(readFileSync("generated/openapi/auth.yaml", "utf8")),
  admin: YAML.parse(readFileSync("generated/openapi/admin.yaml", "utf8")),
};

// Common to all Integration API endpoints (the token check and internal errors).
const TOKEN_CHECK = ["400", "401", "403", "404", "500"];
const ADMIN_COMMON = ["401", "403", "500"];
// Integration API operations without the merchant's token: the probes, and the payer page (its key is the token in its path).
// The checkout widget's /v1/payments takes widget keys, refused as 401 WidgetKeyInvalidError in JSON (test/checkout/payments.test.ts).
const NO_TOKEN_CHECK = new Set(["/healthz", "/readyz", "/p/{token}", "/p/{token}/payment-confirmation", "/v1/payments", "/v1/payments/{paymentRequestId}"]);

const expected: Array<[Api, string, string, string[]]> = [
  ["integration", "post", "/payment-request", ["201", "400", "409", "429", "503", ...TOKEN_CHECK]],
  ["integration", "get", "/payment-request/{referenceId}", ["200", ...TOKEN_CHECK]],
  ["integration", "get", "/payment-request", ["200", ...TOKEN_CHECK]],
  ["integration", "patch", "/payment-request/{referenceId}", ["200", "409", ...TOKEN_CHECK]],
  ["integration", "patch", "/payment-request/{referenceId}/customer", ["200", "409", ...TOKEN_CHECK]],
  ["integration", "post", "/payment-request/{referenceId}/cancel", ["200", "409", ...TOKEN_CHECK]],
  ["integration", "post", "/payment-request/bulk", ["201", "422", "429", "503", ...TOKEN_CHECK]],
  ["integration", "get", "/payer-lookup", ["200", "429", "503", ...TOKEN_CHECK]],
  ["integration", "get", "/me", ["200", ...TOKEN_CHECK]],
  ["integration", "put", "/my-integration/tenant", ["200", ...TOKEN_CHECK]],
  ["integration", "get", "/p/{token}", ["200", "404", "500"]],
  ["integration", "post", "/p/{token}/payment-confirmation", ["303", "404", "409", "500"]],

  ["auth", "get", "/integration/oauth2/authorize", ["200", "400", "401", "431"]],
  ["auth", "post", "/integration/oauth2/token", ["200", "400", "401", "500"]],
  ["auth", "post", "/integration/oauth2/refresh", ["200", "400", "401"]],
  ["auth", "post", "/integration/oauth2/revoke", ["200", "401"]],
  ["auth", "post", "/integration/oauth2/complete-login", ["303", "400", "401"]],
  ["auth", "get", "/integration/oauth2/client-info", ["200", "401"]],
  ["auth", "post", "/integration/admin/login", ["200", "400", "401"]],
  ["auth", "post", "/integration/admin/change-password", ["204", "400", "401"]],

  ["admin", "get", "/my-integration/webhook-subscriptions", ["200", ...ADMIN_COMMON]],
  ["admin", "put", "/my-integration/webhook-subscriptions", ["200", "422", ...ADMIN_COMMON]],
  ["admin", "get", "/my-integration/webhook-signing-secret", ["200", "404", ...ADMIN_COMMON]],
  ["admin", "put", "/my-integration/webhook-signing-secret/rotate", ["200", ...ADMIN_COMMON]],
  ["admin", "get", "/my-integration/webhook-events", ["200", ...ADMIN_COMMON]],
  ["admin", "post", "/my-integration/test-webhook", ["200", "400", "403"]],
  ["admin", "get", "/my-integration/tenant", ["200", ...ADMIN_COMMON]],
  ["admin", "post", "/my-integration/tenant", ["201", "400", "409", ...ADMIN_COMMON]],
  ["admin", "put", "/my-integration/tenant/{integrationTenantId}", ["200", "400", "404", ...ADMIN_COMMON]],
  ["admin", "delete", "/my-integration/tenant/{integrationTenantId}", ["404", "409", ...ADMIN_COMMON]],
  ["admin", "put", "/my-integration/tenant/{integrationTenantId}/validation-token", ["400", "404", ...ADMIN_COMMON]],
  ["admin", "delete", "/my-integration/tenant/{integrationTenantId}/validation-token", ["404", ...ADMIN_COMMON]],
  ["admin", "get", "/my-integration/me", ["200", ...ADMIN_COMMON]],
  ["admin", "patch", "/my-integration", ["200", "400", ...ADMIN_COMMON]],
  ["admin", "post", "/my-integration/test-tokens", ["200", ...ADMIN_COMMON]],
  ["admin", "post", "/my-integration/simulate-payment", ["200", "400", ...ADMIN_COMMON]],
  ["admin", "get", "/my-integration/sandbox-clock", ["200", ...ADMIN_COMMON]],
  ["admin", "post", "/my-integration/sandbox-clock", ["200", "400", ...ADMIN_COMMON]],
  ["admin", "post", "/my-integration/sandbox-clock/reset", ["200", ...ADMIN_COMMON]],
  ["admin", "post", "/my-integration/payout-link/invite", ["400", ...ADMIN_COMMON]],
  ["admin", "get", "/my-integration/payout-link", ["200", ...ADMIN_COMMON]],
  ["admin", "post", "/my-integration/payout-link/resend", [...ADMIN_COMMON]],
  ["admin", "get", "/my-integration/offer", ["200", ...ADMIN_COMMON]],
  ["admin", "put", "/my-integration/offer", ["200", "400", ...ADMIN_COMMON]],
  ["admin", "post", "/my-integration/users/{integrationClientUserId}/commission-proposals", ["400", "404", ...ADMIN_COMMON]],
  ["admin", "delete", "/my-integration/users/{integrationClientUserId}/commission-proposals/{invitationId}", ["404", ...ADMIN_COMMON]],
  ["admin", "delete", "/my-integration/users/{integrationClientUserId}", ["404", ...ADMIN_COMMON]],
  ["admin", "get", "/my-integration/users", ["200", ...ADMIN_COMMON]],
  ["admin", "get", "/my-integration/payment-requests", ["200", ...ADMIN_COMMON]],
  ["admin", "get", "/my-integration/admins", ["200", ...ADMIN_COMMON]],
  ["admin", "post", "/my-integration/urls", ["201", "400", ...ADMIN_COMMON]],
  ["admin", "put", "/my-integration/urls/{clientUrlId}", ["200", "400", "404", ...ADMIN_COMMON]],
  ["admin", "post", "/my-integration/urls/{clientUrlId}/test", ["200", "404", ...ADMIN_COMMON]],
  ["admin", "delete", "/my-integration/urls/{clientUrlId}", ["204", "400", "404", ...ADMIN_COMMON]],
  ["admin", "get", "/my-integration/api-keys", ["200", ...ADMIN_COMMON]],
  ["admin", "post", "/my-integration/api-keys", [...ADMIN_COMMON]],
  ["admin", "put", "/my-integration/api-keys/allowed-origins", ["200", "400", ...ADMIN_COMMON]],
  ["admin", "post", "/my-integration/api-keys/rotate-secret", ["200", ...ADMIN_COMMON]],
  ["admin", "put", "/my-integration/logo", ["200", "400", ...ADMIN_COMMON]],
  ["admin", "post", "/my-integration/go-live", [...ADMIN_COMMON]],
  ["admin", "post", "/integration-admin/setup/clients", ["201", "400", "503", ...ADMIN_COMMON]],
  ["admin", "get", "/integration-admin/setup/clients", ["200", ...ADMIN_COMMON]],
  ["admin", "get", "/integration-admin/setup/clients/{id}", ["200", "404", ...ADMIN_COMMON]],
  ["admin", "get", "/integration-admin/merchant-accounts", ["200", "400", ...ADMIN_COMMON]],
  ["admin", "put", "/integration-admin/merchant-accounts/{providerMerchantId}", ["200", "201", "400", "409", "413", "503", ...ADMIN_COMMON]],
  ["admin", "patch", "/integration-admin/setup/clients/{id}", ["200", "400", "404", ...ADMIN_COMMON]],
  ["admin", "post", "/integration-admin/setup/clients/{id}/admins", ["400", "404", "503", ...ADMIN_COMMON]],
  ["admin", "get", "/integration-admin/setup/clients/{id}/admins", ["200", "404", ...ADMIN_COMMON]],
  ["admin", "post", "/integration-admin/setup/clients/{id}/admins/{adminId}/welcome-email", ["200", "404", "503", ...ADMIN_COMMON]],
  ["admin", "get", "/my-integration/audit-log", ["200", "400", "503", ...ADMIN_COMMON]],
  ["admin", "get", "/integration-admin/audit-log", ["200", "400", "503", ...ADMIN_COMMON]],
];

function operation(api: Api, method: string, path: string) {
  return documents[api].paths[path]?.[method];
}

function schemaNames(api: Api, method: string, path: string, status: string, mediaType = "application/json"): string[] {
  const schema = operation(api, method, path)?.responses[status]?.content?.[mediaType]?.schema as
    | { $ref?: string; anyOf?: Array<{ $ref?: string }> }
    | undefined;
  if (!schema) return [];
  const refs = schema.$ref ? [schema.$ref] : (schema.anyOf ?? []).map((s) => s.$ref ?? "");
  return refs.map((ref) => ref.replace("#/components/schemas/", ""));
}

describe("every documented operation is in the contract", () => {
  it.each(expected)("%s %s %s answers its documented statuses", (api, method, path, statuses) => {
    const op = operation(api, method, path);
    expect(op, `${method.toUpperCase()} ${path} missing from ${api}.yaml`).toBeDefined();
    expect(op!.operationId).toMatch(/^[a-z][A-Za-z0-9]+$/);
    expect(Object.keys(op!.responses)).toEqual(expect.arrayContaining(statuses));
  });

  it("gives every operation a unique camelCase operationId", () => {
    for (const api of Object.keys(documents) as Api[]) {
      const ids = Object.values(documents[api].paths).flatMap((item) => Object.values(item).map((op) => op.operationId));
      expect(new Set(ids).size, api).toBe(ids.length);
    }
  });
});

describe("error bodies have the seed's shapes", () => {
  it("answers the token check in plain text on every Integration API operation", () => {
    for (const [path, item] of Object.entries(documents.integration.paths)) {
      for (const [method, op] of Object.entries(item)) {
        if (NO_TOKEN_CHECK.has(path)) continue;
        for (const status of ["400", "401", "403", "404"]) {
          expect(op.responses[status]?.content?.["text/plain"], `${method} ${path} ${status}`).toBeDefined();
        }
        expect(schemaNames("integration", method, path, "500")).toEqual(["ErrorBody"]);
      }
    }
  });

  it("answers the payer page's refusals with HTML pages, for the payer's browser", () => {
    for (const [method, path, status] of [
      ["get", "/p/{token}", "404"],
      ["post", "/p/{token}/payment-confirmation", "404"],
      ["post", "/p/{token}/payment-confirmation", "409"],
    ] as const) {
      expect(Object.keys(operation("integration", method, path)!.responses[status]!.content!), `${method} ${path} ${status}`).toEqual(["text/html"]);
    }
  });

  it("uses {code, message, id, validationDetails} for validation failures", () => {
    expect(schemaNames("integration", "post", "/payment-request", "400")).toContain("ValidationErrorBody");
    expect(schemaNames("integration", "post", "/payment-request/bulk", "400")).toContain("ValidationErrorBody");
  });

  it("uses {error, message, referenceId} for a repeated referenceId on create", () => {
    expect(schemaNames("integration", "post", "/payment-request", "409")).toEqual(expect.arrayContaining(["ReferenceIdConflictBody", "ErrorBody"]));
  });

  it("uses {message, errors} for the bulk 422", () => {
    expect(schemaNames("integration", "post", "/payment-request/bulk", "422")).toEqual(["BulkValidationErrorBody"]);
  });

  it("uses {message} for a missing charge", () => {
    expect(schemaNames("integration", "get", "/payment-request/{referenceId}", "404")).toEqual(["MessageBody"]);
  });

  it("uses {code, message} for the payer-lookup 503, and the general shape when the database is away", () => {
    expect(schemaNames("integration", "get", "/payer-lookup", "503")).toEqual(["CodedMessageBody", "ErrorBody"]);
  });

  it("links a charge's create to its read, completion, payer change and cancel (schemathesis's stateful phase follows them)", () => {
    type WithLinks = { responses: Record<string, { links?: Record<string, { operationId: string; parameters: Record<string, string> }> }> };
    const linksOf = (method: string, path: string, status: string) => {
      const links = (documents.integration.paths[path]![method] as unknown as WithLinks).responses[status]!.links ?? {};
      return Object.fromEntries(Object.entries(links).map(([name, link]) => [name, `${link.operationId}(${link.parameters.referenceId})`]));
    };
    const byReference = (...operationIds: string[]) => Object.fromEntries(operationIds.map((id) => [id, `${id}($response.body#/referenceId)`]));
    expect(linksOf("post", "/payment-request", "201")).toEqual(
      byReference("getPaymentRequest", "completePaymentRequestAmount", "updatePaymentRequestCustomer", "cancelPaymentRequest"),
    );
    expect(linksOf("patch", "/payment-request/{referenceId}", "200")).toEqual(byReference("getPaymentRequest", "cancelPaymentRequest"));
    expect(linksOf("post", "/payment-request/{referenceId}/cancel", "200")).toEqual(byReference("getPaymentRequest"));
    // The extension that carries them in the TypeSpec is not published.
    expect(JSON.stringify(documents.integration)).not.toContain("x-links");
  });

  it("documents 503 ServiceUnavailableError with Retry-After on every operation that reads the database", () => {
    // The probes answer for themselves (/readyz is 503 when the database is away); the discovery documents,
    // the JWKS and the logos are served without it or from memory.
    const withoutDatabase = /^\/(healthz|readyz|openapi\.yaml)$|^\/\.well-known\/|^\/integration\/oauth2\/logos\//;
    const missing: string[] = [];
    for (const api of Object.keys(documents) as Api[]) {
      for (const [path, item] of Object.entries(documents[api].paths)) {
        if (withoutDatabase.test(path)) continue;
        for (const [method, op] of Object.entries(item)) {
          const unavailable = op.responses["503"] as { description?: string; headers?: Record<string, unknown> } | undefined;
          if (!unavailable?.description?.includes("ServiceUnavailableError") || !unavailable.headers?.["Retry-After"])
            missing.push(`${api} ${method.toUpperCase()} ${path}`);
        }
      }
    }
    expect(missing).toEqual([]);
  });

  it("documents both daily message caps on create and bulk", () => {
    for (const path of ["/payment-request", "/payment-request/bulk"]) {
      expect(schemaNames("integration", "post", path, "429")).toEqual(["DailyRequestLimitExceededBody", "GlobalDailyMessageLimitExceededBody"]);
    }
    expect(schemaNames("integration", "get", "/payer-lookup", "429")).toEqual(["PayerLookupLimitBody"]);
  });

  it("uses {error, message, data} for the 409s of PATCH amount, PATCH customer and cancel", () => {
    for (const [method, path] of [
      ["patch", "/payment-request/{referenceId}"],
      ["patch", "/payment-request/{referenceId}/customer"],
      ["post", "/payment-request/{referenceId}/cancel"],
    ] as const) {
      const schema = operation("integration", method, path)!.responses["409"]!.content!["application/json"]!.schema as { required: string[] };
      expect(schema.required).toEqual(["error", "message", "data"]);
    }
  });

  it("uses the admin general body {code, message, id, cause?} on the Admin API", () => {
    const names = schemaNames("admin", "get", "/my-integration/webhook-subscriptions", "401");
    expect(names).toEqual(["AdminErrorBody"]);
  });
});

describe("webhook events", () => {
  it("publishes the five event payloads and the signature headers", () => {
    const schemas = (
      YAML.parse(readFileSync("generated/openapi/integration.yaml", "utf8")) as {
        components: { schemas: Record<string, { properties: Record<string, unknown> }> };
      }
    ).components.schemas;
    expect(Object.keys(schemas.PaymentReceivedEvent!.properties)).toEqual(
      expect.arrayContaining([
        "event",
        "stateType",
        "livemode",
        "referenceId",
        "requestedAmount",
        "paidAmount",
        "thisPaymentAmount",
        "remainingAmount",
        "reconciledPayerCuil",
        "metadata",
      ]),
    );
    expect(Object.keys(schemas.PaymentUnmatchedEvent!.properties)).toEqual(expect.arrayContaining(["event", "reason", "livemode"]));
    expect(Object.keys(schemas.PaymentRequestExpiredEvent!.properties)).toEqual(expect.arrayContaining(["event", "livemode", "referenceId", "metadata"]));
    const returnFields = ["event", "livemode", "unmatchedPaymentId", "returnId", "transactionId", "cvu", "amount", "reason"];
    expect(Object.keys(schemas.PaymentReturnedEvent!.properties)).toEqual(expect.arrayContaining([...returnFields, "returnedAt"]));
    expect(Object.keys(schemas.PaymentReturnFailedEvent!.properties)).toEqual(expect.arrayContaining([...returnFields, "failureReason", "failedAt"]));
    expect(Object.keys(schemas.WebhookHeaders!.properties)).toEqual([
      "X-Service-Signature",
      "X-Service-Webhook-Id",
      "webhook-id",
      "webhook-timestamp",
      "webhook-signature",
      "validation-token",
    ]);
  });
});
