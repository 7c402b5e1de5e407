// Turns Ajv's errors (as openapi-backend reports them) into the documented `validationDetails`: one
// `{field, message}` per problem, the field as a JSON path a person reads (`customer.phoneNumber.number`,
// `dueDates[1]`, `limit`), the message a sentence that names it.
import type { ErrorObject } from "ajv";
import type { FieldProblem, ValidationRule } from "../../domain/errors.ts";

/** `/requestBody/customer/x` → `customer.x`; `/requestBody/dueDates/1` → `dueDates[1]`; `/query/limit` → `limit`. */
export function fieldPath(instancePath: string, child?: string): string {
  const segments = instancePath
    .split("/")
    .slice(1)
    .map((segment) => segment.replace(/~1/g, "/").replace(/~0/g, "~"));
  const location = segments.shift();
  if (location === "requestBody" || location === "query" || location === "params" || location === "path" || location === "headers") {
    // the location prefix says nothing a client needs
  } else if (location !== undefined) {
    segments.unshift(location);
  }
  if (child !== undefined) segments.push(child);
  let path = "";
  for (const segment of segments) {
    if (/^\d+$/.test(segment)) path += `[${segment}]`;
    else path += path === "" ? segment : `.${segment}`;
  }
  return path === "" ? "body" : path;
}

/** A pattern that asks for an https URL: `^https://`, or `^(https://|http://(localhost|…` with the Sandbox's loopback allowance. */
const HTTPS_PATTERN = /^\^\(?https:\/\//;

function describe(error: ErrorObject): FieldProblem | undefined {
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case "required": {
      const field = fieldPath(error.instancePath, String(params.missingProperty));
      return { field, rule: "required", message: `${field} is required` };
    }
    case "additionalProperties": {
      const field = fieldPath(error.instancePath, String(params.additionalProperty));
      return { field, rule: "notAccepted", message: `${field}: field not accepted` };
    }
    case "type":
      return bound(error, "type", `must be ${article(String(params.type))}`);
    case "enum": {
      const allowed = (params.allowedValues as unknown[]).filter((value) => value !== null).map((value) => JSON.stringify(value));
      return bound(error, "enum", allowed.length === 1 ? `must be ${allowed[0]}` : `must be one of ${allowed.join(", ")}`);
    }
    case "const":
      return bound(error, "enum", `must be ${JSON.stringify(params.allowedValue)}`);
    case "minLength":
      return bound(error, "minLength", `must have at least ${params.limit} characters`, Number(params.limit));
    case "maxLength":
      return bound(error, "maxLength", `must have at most ${params.limit} characters`, Number(params.limit));
    case "minItems":
      return bound(error, "minItems", `must have at least ${params.limit} items`, Number(params.limit));
    case "maxItems":
      return bound(error, "maxItems", `must have at most ${params.limit} items`, Number(params.limit));
    case "minProperties":
      return bound(error, "minProperties", `must have at least ${params.limit} fields`, Number(params.limit));
    case "maxProperties":
      return bound(error, "maxProperties", `must have at most ${params.limit} keys`, Number(params.limit));
    case "minimum":
    case "exclusiveMinimum":
    case "maximum":
    case "exclusiveMaximum": {
      const comparison = String(params.comparison);
      const words: Record<string, string> = { ">=": "at least", ">": "greater than", "<=": "at most", "<": "less than" };
      return bound(error, error.keyword, `must be ${words[comparison] ?? comparison} ${params.limit}`, Number(params.limit));
    }
    case "multipleOf":
      return params.multipleOf === 0.01
        ? bound(error, "decimals", "must have at most 2 decimals", 2)
        : bound(error, "multipleOf", `must be a multiple of ${params.multipleOf}`, Number(params.multipleOf));
    case "pattern":
      // The contract's URL patterns (EndpointUrl, HttpsUrl) are the https rule: say so rather than "format".
      return HTTPS_PATTERN.test(String(params.pattern))
        ? bound(error, "https", "must be an https URL (http:// only on loopback hosts, in the Sandbox)")
        : bound(error, "pattern", "has an invalid format");
    case "format":
      return { ...bound(error, "format", `must be a valid ${params.format}`), format: String(params.format) };
    case "anyOf":
    case "oneOf":
    case "allOf":
    case "if":
    case "not":
      return undefined; // the branch errors around it say what is wrong
    default:
      return bound(error, "invalid", error.message ?? "is invalid");
  }
}

function bound(error: ErrorObject, rule: ValidationRule, text: string, limit?: number): FieldProblem {
  const field = fieldPath(error.instancePath);
  return { field, rule, message: `${field} ${text}`, ...(limit === undefined || Number.isNaN(limit) ? {} : { limit }) };
}

function article(type: string): string {
  if (type === "integer") return "an integer";
  if (type === "object") return "an object";
  if (type === "array") return "an array";
  return `a ${type}`;
}

/**
 * A body that takes exactly one of several fields is written in the contract as alternatives (`anyOf` or
 * `oneOf`) of closed objects that each require one field of their own. Schema validation then reports
 * every alternative's complaint: `{}` would read "advanceTo is required" and "advanceBy is required", and
 * `{advanceBy: "x"}` would add "advanceTo is required" to the real problem. These are the alternatives'
 * fields, so that one problem can say "exactly one of" and the others' complaints can be left out.
 */
export function exclusiveFields(schema: unknown, resolve: (schema: unknown) => unknown): string[] | undefined {
  const alternatives = (resolve(schema) as { anyOf?: unknown[]; oneOf?: unknown[] } | undefined) ?? {};
  const branches = (alternatives.anyOf ?? alternatives.oneOf)?.map(resolve) as Array<{ required?: string[]; additionalProperties?: unknown }> | undefined;
  if (!branches || branches.length < 2) return undefined;
  const fields = branches.map((branch) => (branch.additionalProperties === false && branch.required?.length === 1 ? branch.required[0] : undefined));
  return fields.every((field) => field !== undefined) && new Set(fields).size === fields.length ? (fields as string[]) : undefined;
}

export function validationProblems(errors: readonly ErrorObject[], body?: { value: unknown; exclusiveFields?: readonly string[] }): FieldProblem[] {
  const problems: FieldProblem[] = [];
  const seen = new Set<string>();
  const add = (problem: FieldProblem) => {
    const key = `${problem.field}\u0000${problem.message}`;
    if (seen.has(key)) return;
    seen.add(key);
    problems.push(problem);
  };
  let relevant = errors;
  const alternatives = body?.exclusiveFields;
  if (alternatives && errors.some((error) => error.instancePath === "/requestBody" && (error.keyword === "anyOf" || error.keyword === "oneOf"))) {
    const value = body.value;
    const given = typeof value === "object" && value !== null ? alternatives.filter((field) => Object.hasOwn(value, field)) : [];
    if (given.length !== 1) {
      add({ field: "body", rule: "exactlyOneOf", fields: [...alternatives], message: `body must have exactly one of ${alternatives.join(", ")}` });
    }
    // What an alternative says of the others' fields is not a problem of the body.
    relevant = errors.filter(
      (error) =>
        error.instancePath !== "/requestBody" ||
        !(
          (error.keyword === "required" && alternatives.includes(String((error.params as { missingProperty?: unknown }).missingProperty))) ||
          (error.keyword === "additionalProperties" && alternatives.includes(String((error.params as { additionalProperty?: unknown }).additionalProperty)))
        ),
    );
  }
  for (const error of relevant) {
    const problem = describe(error);
    if (problem) add(problem);
  }
  if (problems.length === 0) problems.push({ field: "body", rule: "invalid", message: "the request does not match the contract" });
  return problems;
}

/**
 * Strings holding U+0000 (NUL), anywhere in a request's body, query or path parameters: JSON allows the
 * character, PostgreSQL's text cannot store it, so such a request is refused up front rather than
 * failing in the database. Object keys are checked too (metadata keys are stored).
 */
export function nulCharacterProblems(value: unknown, field = ""): FieldProblem[] {
  const name = field === "" ? "body" : field;
  if (typeof value === "string")
    return value.includes("\u0000") ? [{ field: name, rule: "nulCharacter", message: `${name} must not contain the NUL character (U+0000)` }] : [];
  if (Array.isArray(value)) return value.flatMap((item, index) => nulCharacterProblems(item, `${field}[${index}]`));
  if (typeof value !== "object" || value === null || Buffer.isBuffer(value)) return [];
  return Object.entries(value).flatMap(([key, item]) => {
    const path = field === "" ? key : `${field}.${key}`;
    if (key.includes("\u0000")) return [{ field: name, rule: "nulCharacter", message: `${name} must not have a key with the NUL character (U+0000)` }];
    return nulCharacterProblems(item, path);
  });
}
