// `npm run mock` (scripts/mock.ts) serves Prism mocks of the three APIs from the generated documents: a
// valid request to a documented operation of each gets the documented success, and its body validates
// against the operation's response schema.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startMocks, type RunningMocks } from "../../scripts/mock.ts";
import type { ApiName } from "../../scripts/normalize-openapi.ts";
import { freePorts } from "../../scripts/free-ports.ts";
import { generatedDocument, schemaValidator, type Document, type Media, type Operation } from "../helpers/openapi-documents.ts";

/** One documented operation of each API, called with its documented request example. */
const cases: Array<{ api: ApiName; operationId: string; headers?: Record<string, string> }> = [
  { api: "integration", operationId: "createPaymentRequest", headers: { authorization: "Bearer eyJhbGciOiJFUzI1NiJ9.e30.c2ln" } },
  { api: "auth", operationId: "refreshToken" },
  { api: "admin", operationId: "createTenant", headers: { authorization: "Bearer eyJhbGciOiJFUzI1NiJ9.e30.c2ln" } },
];

function findOperation(document: Document, operationId: string): { path: string; method: string; operation: Operation } {
  for (const [path, item] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(item)) {
      if (operation.operationId === operationId) return { path, method, operation };
    }
  }
  throw new Error(`no operation ${operationId}`);
}

function exampleOf(media: Media): unknown {
  return media.example !== undefined ? media.example : Object.values(media.examples ?? {})[0]?.value;
}

let mocks: RunningMocks;

beforeAll(async () => {
  const [integration, auth, admin] = await freePorts(3);
  mocks = await startMocks({ ports: { integration, auth, admin } });
}, 90_000);
afterAll(async () => {
  await mocks?.stop();
});

describe.each(cases)("the $api API's mock", ({ api, operationId, headers }) => {
  it(`answers ${operationId} with a body that validates against its response schema`, async () => {
    const document = generatedDocument(api);
    const { path, method, operation } = findOperation(document, operationId);
    const requestMedia = operation.requestBody?.content["application/json"];
    const response = await fetch(`${mocks.urls[api]}${path}`, {
      method: method.toUpperCase(),
      headers: { accept: "application/json", ...(requestMedia ? { "content-type": "application/json" } : {}), ...headers },
      body: requestMedia ? JSON.stringify(exampleOf(requestMedia)) : undefined,
    });
    const text = await response.text();
    const successes = Object.keys(operation.responses).filter((status) => status.startsWith("2"));
    expect(successes, `${response.status} ${text}`).toContain(String(response.status));
    expect(response.headers.get("content-type")).toMatch(/^application\/json/);
    const schema = operation.responses[String(response.status)]!.content!["application/json"]!.schema!;
    expect(schemaValidator(document)(schema, JSON.parse(text))).toBeNull();
  });

  it(`refuses ${operationId} with a body outside the contract`, async () => {
    const document = generatedDocument(api);
    const { path, method } = findOperation(document, operationId);
    const response = await fetch(`${mocks.urls[api]}${path}`, {
      method: method.toUpperCase(),
      headers: { accept: "application/json", "content-type": "application/json", ...headers },
      body: JSON.stringify({ notInTheContract: true }),
    });
    expect([400, 422]).toContain(response.status); // Prism answers the documented 400 (or its own 422) to an invalid request
  });
});

it("validates request bodies whose schemas hold nullable enums, and still accepts their null", async () => {
  const document = generatedDocument("integration");
  const { operation } = findOperation(document, "createPaymentRequest");
  const example = exampleOf(operation.requestBody!.content["application/json"]!) as Record<string, unknown>;
  const post = (body: unknown) =>
    fetch(`${mocks.urls.integration}/payment-request`, {
      method: "POST",
      headers: { accept: "application/json", "content-type": "application/json", authorization: "Bearer eyJhbGciOiJFUzI1NiJ9.e30.c2ln" },
      body: JSON.stringify(body),
    });
  expect((await post({ ...example, conciliationType: null })).status).toBe(201);
  expect((await post({ ...example, conciliationType: "bank" })).status).toBe(400);
  expect((await post({ ...example, description: "x" })).status).toBe(400);
});
