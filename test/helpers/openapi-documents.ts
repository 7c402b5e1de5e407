// The generated OpenAPI documents as tests read them, and a JSON Schema validator over one document's
// components (OpenAPI's numeric and binary formats accepted as they come).
import { readFileSync } from "node:fs";
import { Ajv } from "ajv";
import addFormats from "ajv-formats";
import YAML from "yaml";
import type { ApiName } from "../../scripts/normalize-openapi.ts";

export type Media = { schema?: Record<string, unknown>; example?: unknown; examples?: Record<string, { value: unknown }> };
export type Operation = {
  operationId: string;
  requestBody?: { content: Record<string, Media> };
  responses: Record<string, { content?: Record<string, Media> }>;
};
export type Document = { paths: Record<string, Record<string, Operation>>; components: Record<string, unknown> };

/** generated/openapi/<api>.yaml, read from the project's root (vitest's working folder). */
export function generatedDocument(api: ApiName): Document {
  return YAML.parse(readFileSync(`generated/openapi/${api}.yaml`, "utf8")) as Document;
}

/** `validate(schema, value)`: null when the value is valid, else Ajv's errors; `$ref`s resolve in `document`. */
export function schemaValidator(document: Document) {
  const ajv = new Ajv({ strict: false, allErrors: true, multipleOfPrecision: 8 });
  addFormats.default(ajv);
  for (const format of ["int32", "int64", "float", "double", "byte", "binary", "password"]) ajv.addFormat(format, true);
  return (schema: Record<string, unknown>, value: unknown) => {
    const validate = ajv.compile({ ...schema, components: document.components });
    return validate(value) ? null : validate.errors;
  };
}
