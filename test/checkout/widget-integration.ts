// A Sandbox integration set up for the checkout widget in tests: its keys (publishable, and a secret key
// from a rotation), optional allowed origins, the linked merchant to collect for, and calls with each key.
import { expect } from "vitest";
import { read, type TestService } from "../helpers/service.ts";
import { sandboxIntegration } from "../helpers/sandbox-admin.ts";
import { uniqueRef } from "../helpers/unique-ref.ts";

export type WidgetIntegration = Awaited<ReturnType<typeof widgetIntegration>>;

export async function widgetIntegration(t: TestService, options: { allowedOrigins?: string[] } = {}) {
  const { merchant, admin, createCharge } = await sandboxIntegration(t);
  if (options.allowedOrigins)
    expect((await admin.call("PUT", "/my-integration/api-keys/allowed-origins", { allowedOrigins: options.allowedOrigins })).status).toBe(200);
  const created = await admin.call("POST", "/my-integration/api-keys");
  expect(created.status, created.text).toBe(201);
  const rotated = await admin.call("POST", "/my-integration/api-keys/rotate-secret");
  expect(rotated.status, rotated.text).toBe(200);
  const publishableKey: string = created.json.publishableKey;
  const secretKey: string = rotated.json.secretKey;
  // The merchant account of the Sandbox test tokens: the one `merchant.call` acts as.
  const merchantUserId: string = (await merchant.call("GET", "/me")).json.merchantUserId;

  const v1 = async (method: string, path: string, key: string | undefined, body?: unknown, headers: Record<string, string> = {}) =>
    read(
      await fetch(`${t.integrationUrl}/v1${path}`, {
        method,
        headers: { ...(key ? { authorization: `Bearer ${key}` } : {}), ...(body === undefined ? {} : { "content-type": "application/json" }), ...headers },
        body: body === undefined ? undefined : JSON.stringify(body),
      }),
    );
  const paymentBody = (overrides: object = {}) => ({
    merchantUserId,
    referenceId: uniqueRef("ORDER"),
    amount: 1234.56,
    description: "Pedido de la tienda",
    ...overrides,
  });
  /** A checkout charge created with the secret key (201 expected). */
  const createPayment = async (overrides: object = {}) => {
    const result = await v1("POST", "/payments", secretKey, paymentBody(overrides));
    expect(result.status, result.text).toBe(201);
    return result.json;
  };
  return { merchant, admin, createCharge, publishableKey, secretKey, merchantUserId, v1, paymentBody, createPayment };
}
