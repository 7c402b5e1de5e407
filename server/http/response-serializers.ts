// JSON answers written by the serializers `npm run generate` compiles from the contract
// (generated/serializers/{api}.ts, scripts/generate-serializers.ts): what an operation's response
// declares is written, anything else a body carries is left out, and no JSON.stringify walks the body.
import { isDeepStrictEqual } from "node:util";
import type { Response } from "express";
import type { ApiName } from "../../runtime/config.ts";
import { responseSerializers as adminResponseSerializers } from "../../generated/serializers/admin.ts";
import { responseSerializers as authResponseSerializers } from "../../generated/serializers/auth.ts";
import { responseSerializers as integrationResponseSerializers } from "../../generated/serializers/integration.ts";

export type Serialize = (body: unknown) => string;
/** An operation's serializers by documented status (a status without one is answered with JSON.stringify). */
export type OperationSerializers = Readonly<Record<string, Serialize>>;

const generated: Record<ApiName, Record<string, OperationSerializers>> = {
  integration: integrationResponseSerializers,
  auth: authResponseSerializers,
  admin: adminResponseSerializers,
};

const NONE: OperationSerializers = Object.freeze({});

export function operationSerializers(api: ApiName, operationId: string): OperationSerializers {
  return generated[api][operationId] ?? NONE;
}

/**
 * The body as JSON text, by the status's serializer when there is one. `checked` (tests, beside the
 * response validation): a serializer that writes anything other than the body itself (a declared field
 * dropped, a value changed) is an error, so every tested answer proves its serializer.
 */
export function jsonText(body: unknown, serialize: Serialize | undefined, checked: boolean, what: string): string {
  if (serialize === undefined) return JSON.stringify(body);
  const text = serialize(body);
  if (checked) {
    const plain = JSON.stringify(body);
    if (!isDeepStrictEqual(JSON.parse(text), JSON.parse(plain))) throw new Error(`${what}: the serializer wrote ${text} for ${plain}`);
  }
  return text;
}

/**
 * As Express's `res.json`, with the text already made, but without the ETag Express's `send` computes from
 * every body (a SHA-1 of it, and a 304 for a request whose If-None-Match names it): no operation of the
 * contract declares either, and the hash was a few percent of a GET's CPU. A type set before keeps its
 * name, with the text's charset (as `send` gave it).
 */
export function sendJsonText(res: Response, text: string): void {
  const type = res.get("Content-Type");
  res.setHeader("Content-Type", `${type ? type.replace(/;\s*charset=[^;]*/i, "") : "application/json"}; charset=utf-8`);
  res.setHeader("Content-Length", Buffer.byteLength(text));
  res.end(text);
}
