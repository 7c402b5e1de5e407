// An unexpected error answers 500 {code, message, id}; the id and the stack go to the log, never to the client.
import { afterAll, beforeAll, expect, it } from "vitest";
import { startTestApi, type TestApi } from "../helpers/api.ts";
import { integrationHandlers } from "../../handlers/integration/index.ts";
import { anonymousCaller, type IntegrationCaller } from "../../domain/sign-in/callers.ts";

let api: TestApi;

beforeAll(async () => {
  api = await startTestApi<IntegrationCaller>("integration", {
    anonymous: anonymousCaller,
    security: { MerchantBearer: async () => ({ caller: anonymousCaller }) },
    handlers: {
      ...integrationHandlers,
      getMe: async () => {
        throw new Error('relation "merchant_secrets" does not exist: select * from merchant_secrets');
      },
    },
  });
});
afterAll(() => api.close());

it("answers 500 in the general shape and logs the id with the stack", async () => {
  const response = await fetch(`${api.url}/me`, { headers: { authorization: "Bearer anything" } });
  expect(response.status).toBe(500);
  const text = await response.text();
  const body = JSON.parse(text);
  expect(body).toEqual({ code: "InternalError", message: expect.any(String), id: expect.any(String) });
  expect(text).not.toMatch(/merchant_secrets|select|at .*\.ts/);
  const logged = api.logLines.find((line) => line.errorId === body.id);
  expect(logged).toBeDefined();
  expect(JSON.stringify(logged)).toContain("merchant_secrets");
  expect((logged!.err as { stack: string }).stack).toMatch(/errors\.test\.ts/);
});

it("never logs the Authorization header", async () => {
  await fetch(`${api.url}/me`, { headers: { authorization: "Bearer very-secret-token" } });
  expect(JSON.stringify(api.logLines)).not.toContain("very-secret-token");
});

it("logs one line per request when it is answered: id, method, URL with secrets of the query redacted, status and time", async () => {
  const response = await fetch(`${api.url}/payment-request/REF-1?token=pr_secret_reset_token&code=the-code`, { headers: { authorization: "Bearer anything" } });
  await response.text();
  const requestId = response.headers.get("x-request-id");
  await expect
    .poll(() =>
      api.logLines.find(
        (line) => (line.req as { id?: string } | undefined)?.id === requestId && line.msg !== undefined && String(line.msg).startsWith("request "),
      ),
    )
    .toBeDefined();
  const logged = api.logLines.find((line) => (line.req as { id?: string } | undefined)?.id === requestId)!;
  expect(logged).toMatchObject({
    level: 30,
    msg: "request completed",
    api: "integration",
    req: { id: requestId, method: "GET", url: "/payment-request/REF-1?token=[redacted]&code=[redacted]" },
    res: { statusCode: response.status },
    responseTime: expect.any(Number),
  });
  expect(JSON.stringify(api.logLines)).not.toContain("pr_secret_reset_token");
});

it("logs a request answered 500 at error level, with the handler's line bound to the same id", async () => {
  const response = await fetch(`${api.url}/me`, { headers: { authorization: "Bearer anything" } });
  const body = (await response.json()) as { id: string };
  await expect
    .poll(() => api.logLines.find((line) => line.msg === "request errored" && (line.req as { id?: string }).id === body.id))
    .toMatchObject({ level: 50, res: { statusCode: 500 } });
  expect(api.logLines.find((line) => line.errorId === body.id)).toMatchObject({ req: { id: body.id, method: "GET", url: "/me" } });
});

it("sends X-Request-Id on every answer (an addition to the specification): an error's is its body's id, a success has one too", async () => {
  const failed = await fetch(`${api.url}/me`, { headers: { authorization: "Bearer anything" } });
  expect(failed.headers.get("x-request-id")).toBe(((await failed.json()) as { id: string }).id);
  const unknown = await fetch(`${api.url}/no-such-route`);
  expect(unknown.status).toBe(404);
  expect(unknown.headers.get("x-request-id")).toBe(((await unknown.json()) as { id: string }).id);
  const page = await fetch(`${api.url}/openapi.json`);
  expect(page.status).toBe(200);
  await page.arrayBuffer();
  const ids = [failed, unknown, page].map((response) => response.headers.get("x-request-id"));
  for (const id of ids) expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  expect(new Set(ids).size).toBe(3);
});
