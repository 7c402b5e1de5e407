// Turns Ajv's errors (as openapi-backend reports them) into the documented `validationDetails`: one
// `{field, message}` per problem, the field as a JSON path a person reads (`customer.phoneNumber.number`,
// `dueDates[1]`, `limit`), the message a sentence that names it.
import type { ErrorObject } from "ajv";
import type { FieldProblem } from "../domain/errors.ts";

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

function describe(error: ErrorObject): FieldProblem | undefined {
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case "required": {
      const field = fieldPath(error.instancePath, String(params.missingProperty));
      return { field, message: `${field} is required` };
    }
    case "additionalProperties": {
      const field = fieldPath(error.instancePath, String(params.additionalProperty));
      return { field, message: `${field}: field not accepted` };
    }
    case "type": {
      const field = fieldPath(error.instancePath);
      return { field, message: `${field} must be ${article(String(params.type))}` };
    }
    case "enum": {
      const field = fieldPath(error.instancePath);
      const allowed = (params.allowedValues as unknown[]).filter((value) => value !== null).map((value) => JSON.stringify(value));
      return { field, message: allowed.length === 1 ? `${field} must be ${allowed[0]}` : `${field} must be one of ${allowed.join(", ")}` };
    }
    case "const": {
      const field = fieldPath(error.instancePath);
      return { field, message: `${field} must be ${JSON.stringify(params.allowedValue)}` };
    }
    case "minLength":
      return bound(error, `must have at least ${params.limit} characters`);
    case "maxLength":
      return bound(error, `must have at most ${params.limit} characters`);
    case "minItems":
      return bound(error, `must have at least ${params.limit} items`);
    case "maxItems":
      return bound(error, `must have at most ${params.limit} items`);
    case "minProperties":
      return bound(error, `must have at least ${params.limit} fields`);
    case "maxProperties":
      return bound(error, `must have at most ${params.limit} keys`);
    case "minimum":
    case "exclusiveMinimum":
    case "maximum":
    case "exclusiveMaximum": {
      const comparison = String(params.comparison);
      const words: Record<string, string> = { ">=": "at least", ">": "greater than", "<=": "at most", "<": "less than" };
      return bound(error, `must be ${words[comparison] ?? comparison} ${params.limit}`);
    }
    case "multipleOf":
      return bound(error, params.multipleOf === 0.01 ? "must have at most 2 decimals" : `must be a multiple of ${params.multipleOf}`);
    case "pattern":
      return bound(error, "has an invalid format");
    case "format":
      return bound(error, `must be a valid ${params.format}`);
    case "anyOf":
    case "oneOf":
    case "allOf":
    case "if":
    case "not":
      return undefined; // the branch errors around it say what is wrong
    default:
      return bound(error, error.message ?? "is invalid");
  }
}

function bound(error: ErrorObject, text: string): FieldProblem {
  const field = fieldPath(error.instancePath);
  return { field, message: `${field} ${text}` };
}

function article(type: string): string {
  if (type === "integer") return "an integer";
  if (type === "object") return "an object";
  if (type === "array") return "an array";
  return `a ${type}`;
}

export function validationProblems(errors: readonly ErrorObject[]): FieldProblem[] {
  const problems: FieldProblem[] = [];
  const seen = new Set<string>();
  for (const error of errors) {
    const problem = describe(error);
    if (!problem) continue;
    const key = `${problem.field}\u0000${problem.message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    problems.push(problem);
  }
  if (problems.length === 0) problems.push({ field: "body", message: "the request does not match the contract" });
  return problems;
}

/**
 * Strings holding U+0000 (NUL), anywhere in a request's body, query or path parameters: JSON allows the
 * character, PostgreSQL's text cannot store it, so such a request is refused up front rather than
 * failing in the database. Object keys are checked too (metadata keys are stored).
 */
export function nulCharacterProblems(value: unknown, field = ""): FieldProblem[] {
  const name = field === "" ? "body" : field;
  if (typeof value === "string") return value.includes("\u0000") ? [{ field: name, message: `${name} must not contain the NUL character (U+0000)` }] : [];
  if (Array.isArray(value)) return value.flatMap((item, index) => nulCharacterProblems(item, `${field}[${index}]`));
  if (typeof value !== "object" || value === null || Buffer.isBuffer(value)) return [];
  return Object.entries(value).flatMap(([key, item]) => {
    const path = field === "" ? key : `${field}.${key}`;
    if (key.includes("\u0000")) return [{ field: name, message: `${name} must not have a key with the NUL character (U+0000)` }];
    return nulCharacterProblems(item, path);
  });
}
