// What the published documents promise must be what the service does: a 503 of a create may come after a
// commit (the database acknowledged it as the connection died), so it tells to check with GET rather than
// promising nothing was created; a bulk item's contract requires what the service requires (`amount`);
// an operation lists only the answers it sends (payer lookup's unlinked account is the token check's 403).
import { describe, expect, it } from "vitest";
import { generatedDocument } from "../helpers/openapi-documents.ts";

const integration = generatedDocument("integration");
const responseOf = (method: string, path: string, status: string) =>
  (integration.paths[path]![method]!.responses as Record<string, { description: string; content?: Record<string, unknown> }>)[status]!;

describe("the 503 of creating charges", () => {
  it.each([["/payment-request"], ["/payment-request/bulk"]])(
    "POST %s says to check with GET before retrying, and does not promise that nothing was created",
    (path) => {
      const { description } = responseOf("post", path, "503");
      expect(description).toMatch(/check with GET/i);
      expect(description).not.toMatch(/nothing was (created|done)/i);
    },
  );
});

describe("a bulk item", () => {
  it("requires `amount` in the contract, as the service does, and says why (a bulk charge takes the shared CVU; a draft holds none)", () => {
    const item = (integration.components as { schemas: Record<string, { required?: string[]; properties: Record<string, { description?: string }> }> }).schemas
      .BulkPaymentRequestItem!;
    expect(item.required).toContain("amount");
    expect(item.properties.amount!.description).toMatch(/draft/);
  });
});

describe("payer lookup", () => {
  it("declares no JSON 404 for an unlinked merchant account: its 404 is the token check's plain text, the unlinked account its 403", () => {
    const notFound = responseOf("get", "/payer-lookup", "404");
    expect(Object.keys(notFound.content ?? {})).toEqual(["text/plain"]);
    expect(notFound.description).not.toMatch(/not linked/);
    expect(responseOf("get", "/payer-lookup", "403").description).toMatch(/not linked/);
  });
});
