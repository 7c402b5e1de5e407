// JSON answers are written by the serializers compiled from the contract (generated/serializers/): every
// field a response declares is written as it is, and a field it does not declare never leaves the service.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApi, type TestApi } from "../helpers/api.ts";
import { generatedDocument, schemaValidator, type Document } from "../helpers/openapi-documents.ts";
import { integrationHandlers } from "../../handlers/integration/index.ts";
import { anonymousCaller, type IntegrationCaller } from "../../domain/sign-in/callers.ts";
import { operationSerializers } from "../../server/http/response-serializers.ts";
import { API_NAMES, type ApiName } from "../../scripts/normalize-openapi.ts";

type Schema = Record<string, any>;

/** Values that meet the contract's patterns and formats. */
const PATTERN_SAMPLES: Record<string, string> = {
  "^(\\d{11}|\\d{7,8})$": "20123456786",
  "^\\d{11}$": "20123456786",
  "^\\d{22}$": "0000003100010000000001",
  "^\\d{4}-\\d{2}-\\d{2}$": "2026-11-27",
  "^\\d{6,15}$": "1123456789",
  "^\\+\\d{1,4}$": "+54",
  "^https://": "https://shop.example.com",
};
const FORMAT_SAMPLES: Record<string, string> = {
  "date-time": "2026-11-27T12:34:56.789Z",
  date: "2026-11-27",
  email: "someone@example.com",
  uri: "https://example.com/a",
  uuid: "8c1f0b7e-4a8e-4c51-9a4b-1d2f3e4a5b6c",
  duration: "P1D",
};

/**
 * A value with every property the schema declares (the first of alternatives), and the same value with an
 * undeclared field added to each object whose properties are listed (`leaky`).
 */
function sample(schema: Schema, document: Document, depth = 0): { plain: unknown; leaky: unknown } {
  if (depth > 12) throw new Error("schema too deep to sample");
  if (typeof schema.$ref === "string") return sample(resolve(schema, document), document, depth + 1);
  if (schema.allOf) {
    const parts = schema.allOf.map((part: Schema) => sample(part, document, depth + 1));
    if (parts.length === 1 && !schema.properties) return parts[0];
    const own = schema.properties ? sample({ ...schema, allOf: undefined }, document, depth + 1) : { plain: {}, leaky: {} };
    return {
      plain: Object.assign({}, ...parts.map((part: any) => part.plain), own.plain),
      leaky: Object.assign({}, ...parts.map((part: any) => part.leaky), own.leaky),
    };
  }
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (alternatives) return sample(alternatives[0], document, depth + 1);
  if (schema.enum) return same(schema.enum[0]);
  if (schema.type === "object" || schema.properties) {
    const plain: Record<string, unknown> = {};
    const leaky: Record<string, unknown> = {};
    for (const [name, property] of Object.entries<Schema>(schema.properties ?? {})) {
      const value = sample(property, document, depth + 1);
      plain[name] = value.plain;
      leaky[name] = value.leaky;
    }
    if (typeof schema.additionalProperties === "object") {
      const value = sample(schema.additionalProperties, document, depth + 1);
      plain.someKey = value.plain;
      leaky.someKey = value.leaky;
    } else if (schema.properties) leaky.undeclaredField = "must not be sent";
    return { plain, leaky };
  }
  if (schema.type === "array") {
    const item = sample(schema.items ?? {}, document, depth + 1);
    return { plain: [item.plain, item.plain], leaky: [item.leaky, item.leaky] };
  }
  if (schema.type === "integer") return same(schema.format === "int64" ? 20123456786 : (schema.minimum ?? 7));
  if (schema.type === "number") return same(schema.minimum ?? 12.5);
  if (schema.type === "boolean") return same(true);
  if (schema.type === "string") {
    if (schema.pattern) return same(PATTERN_SAMPLES[schema.pattern] ?? "unsampled");
    const text = FORMAT_SAMPLES[schema.format] ?? "texto de ejemplo";
    return same(schema.maxLength !== undefined && text.length > schema.maxLength ? text.slice(0, schema.maxLength) : text);
  }
  return same({ free: "form", nested: [1, "two"] });
}

function same(value: unknown) {
  return { plain: value, leaky: value };
}

describe.each(API_NAMES)("the %s API's serializers", (api: ApiName) => {
  const document = generatedDocument(api);
  const validate = schemaValidator(document);
  const responses = Object.values(document.paths).flatMap((item) =>
    Object.values(item).flatMap((operation) =>
      Object.entries(operation.responses ?? {}).flatMap(([status, response]) => {
        const schema = response.content?.["application/json"]?.schema;
        return schema ? [{ operationId: operation.operationId, status, schema }] : [];
      }),
    ),
  );

  it("write every declared field as it is, and leave out every undeclared one, for each JSON response of the contract", () => {
    let checked = 0;
    const unsampled: string[] = [];
    for (const { operationId, status, schema } of responses) {
      const serialize = operationSerializers(api, operationId)[status];
      expect(serialize, `${operationId} ${status} has a serializer`).toBeDefined();
      const { plain, leaky } = sample(schema, document);
      if (validate(schema, plain) !== null) {
        unsampled.push(`${operationId} ${status}`);
        continue;
      }
      expect(JSON.parse(serialize!(plain)), `${operationId} ${status}`).toEqual(plain);
      expect(JSON.stringify(leaky)).not.toBe(JSON.stringify(plain));
      const written = serialize!(leaky);
      expect(JSON.parse(written), `${operationId} ${status} with undeclared fields`).toEqual(plain);
      expect(written).not.toContain("undeclaredField");
      checked++;
    }
    // The sampler meets nearly every schema; the few it cannot (a pattern it has no value for) are named.
    expect(checked, `unsampled: ${unsampled.join(", ")}`).toBeGreaterThanOrEqual(responses.length * 0.9);
  });

  it("write null for a nullable field, a date-time given as a Date as ISO 8601 text, and an int64 given as a bigint as a number", () => {
    let nulls = 0;
    let dates = 0;
    let bigints = 0;
    for (const { operationId, status, schema } of responses) {
      const serialize = operationSerializers(api, operationId)[status]!;
      const { plain } = sample(schema, document);
      if (validate(schema, plain) !== null || typeof plain !== "object" || plain === null || Array.isArray(plain)) continue;
      const target = resolve(schema, document);
      for (const [name, property] of Object.entries<Schema>(target.properties ?? {})) {
        if (property.nullable === true) {
          const withNull = { ...plain, [name]: null };
          expect(JSON.parse(serialize(withNull)), `${operationId} ${status} ${name}: null`).toEqual(withNull);
          nulls++;
        }
        if (property.type === "integer" && property.format === "int64") {
          expect(JSON.parse(serialize({ ...plain, [name]: 20123456786n })), `${operationId} ${status} ${name}: a bigint`).toEqual({
            ...plain,
            [name]: 20123456786,
          });
          bigints++;
        }
        if (property.type === "string" && property.format === "date-time") {
          const at = new Date("2026-11-27T15:00:00.123Z");
          expect(JSON.parse(serialize({ ...plain, [name]: at })), `${operationId} ${status} ${name}: a Date`).toEqual({ ...plain, [name]: at.toISOString() });
          dates++;
        }
      }
    }
    // The Auth API's answers declare neither.
    if (api !== "auth") expect(Math.min(nulls, dates)).toBeGreaterThan(0);
    if (api === "integration") expect(bigints).toBeGreaterThan(0);
  });
});

function resolve(schema: Schema, document: Document): Schema {
  return typeof schema.$ref === "string"
    ? schema.$ref
        .slice(2)
        .split("/")
        .reduce((node: any, key: string) => node[key], document)
    : schema;
}

describe("through HTTP", () => {
  let api: TestApi;
  const document = generatedDocument("integration");
  const schema = Object.values(document.paths)
    .flatMap((item) => Object.values(item))
    .find((operation) => operation.operationId === "getPaymentRequest")!.responses["200"]!.content!["application/json"]!.schema!;
  const { plain, leaky } = sample(schema, document) as { plain: Record<string, unknown>; leaky: Record<string, unknown> };

  beforeAll(async () => {
    api = await startTestApi<IntegrationCaller>("integration", {
      anonymous: anonymousCaller,
      security: { MerchantBearer: async () => ({ caller: anonymousCaller }) },
      // As deployed: answers are not checked against the contract, so only the serializer stands between a
      // handler's extra field and the client.
      validateResponses: false,
      handlers: {
        ...integrationHandlers,
        getPaymentRequest: async ({ params }) => ({
          status: 200,
          body: { ...leaky, internalNotes: "never for the client", merchantSecret: "s3cr3t" },
          // REF-TYPED: a JSON answer whose handler names its type, with another charset than the text's.
          ...((params as { referenceId: string }).referenceId === "REF-TYPED" ? { headers: { "Content-Type": "application/json; charset=latin1" } } : {}),
        }),
      },
    });
  });
  afterAll(() => api.close());

  it("a handler's undeclared fields are left out of its answer; every declared one is sent", async () => {
    const response = await fetch(`${api.url}/payment-request/REF-SERIALIZED-1`, { headers: { authorization: "Bearer anything" } });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/json; charset=utf-8");
    const text = await response.text();
    expect(text).not.toMatch(/internalNotes|merchantSecret|s3cr3t|undeclaredField/);
    expect(JSON.parse(text)).toEqual(plain);
    expect(schemaValidator(document)(schema, JSON.parse(text))).toBeNull();
  });

  it("a JSON answer carries its length and no ETag the contract does not declare; a conditional request still gets the body", async () => {
    const url = `${api.url}/payment-request/REF-SERIALIZED-2`;
    const headers = { authorization: "Bearer anything" };
    const response = await fetch(url, { headers });
    const text = await response.text();
    expect(response.headers.get("etag")).toBeNull();
    expect(response.headers.get("content-length")).toBe(String(Buffer.byteLength(text)));
    // With an ETag, Express answered 304 to a client that named it: no operation documents a 304.
    const conditional = await fetch(url, { headers: { ...headers, "if-none-match": "*" } });
    expect(conditional.status).toBe(200);
    expect(await conditional.text()).toBe(text);
    // An error answer too (its JSON written the same way).
    const refused = await fetch(`${api.url}/payment-request/REF-SERIALIZED-2/nothing-here`, { headers });
    expect(refused.status).toBe(404);
    expect(refused.headers.get("etag")).toBeNull();
    expect(refused.headers.get("content-type")).toBe("application/json; charset=utf-8");
    expect(await refused.json()).toMatchObject({ code: "RouteNotFound" });
    // A type its handler set keeps its name, with the text's charset, and no ETag either.
    const named = await fetch(`${api.url}/payment-request/REF-TYPED`, { headers: { ...headers, "if-none-match": "*" } });
    expect(named.status).toBe(200);
    expect(named.headers.get("content-type")).toBe("application/json; charset=utf-8");
    expect(named.headers.get("etag")).toBeNull();
  });
});
