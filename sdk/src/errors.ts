// Reading the errors the generated clients throw. Each generated client (integration, auth, admin) has its
// own runtime module, hence its own `ResponseError` and `FetchError` classes: these helpers go by the
// errors' names and shapes, so that they work for all three.
//
// This module imports no generated client and nothing of Node (no `node:crypto`), so a browser bundle can
// use it on its own: it is also the package's `@cobro/sdk/errors` entry. The error codes and their statuses
// are generated from the service's error catalogue.
export { ERROR_STATUSES, type ErrorCode } from "./generated/error-codes.js";

/** A non-2xx answer: `response` is the fetch Response (its body not read yet). */
export interface ResponseErrorLike extends Error {
  name: "ResponseError";
  response: Response;
}

/** The request got no answer: a connection error, a timeout or an abort. */
export interface FetchErrorLike extends Error {
  name: "FetchError";
  cause: unknown;
}

export function isResponseError(error: unknown): error is ResponseErrorLike {
  return error instanceof Error && error.name === "ResponseError" && typeof (error as Partial<ResponseErrorLike>).response?.status === "number";
}

/** True when the request may or may not have reached the service: no answer came back. */
export function isNoAnswerError(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  // FetchError: the generated client's wrapper of a failed fetch. TimeoutError and AbortError: a fetch
  // aborted by an AbortSignal (AbortSignal.timeout) outside the client's wrapper.
  return error.name === "FetchError" || error.name === "TimeoutError" || error.name === "AbortError";
}

/** The HTTP status of a generated client's error, or `undefined` when no answer came back. */
export function httpStatusOf(error: unknown): number | undefined {
  return isResponseError(error) ? error.response.status : undefined;
}

/**
 * The JSON body of a generated client's error response, or `undefined` when there is none or it is not
 * JSON. Reads a clone, so that the body can still be read again from the error.
 */
export async function errorBodyOf(error: unknown): Promise<unknown> {
  if (!isResponseError(error)) return undefined;
  try {
    const text = await error.response.clone().text();
    return text === "" ? undefined : JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** One field that failed validation, as a 400 `ValidationError` body lists it in `validationDetails`. */
export interface ValidationDetailLike {
  /** The field's JSON path, dot-separated (`customer.email`, `dueDates[1]`); `body` for the whole body. */
  field: string;
  /** What is wrong with it (English, for a developer's log: decide by `rule`). */
  message: string;
  /** The rule it broke (`required`, `maxLength`, `format`, `exactlyOneOf`…: the contract's `ValidationRule`). */
  rule?: string;
  /** The rule's bound (a length, a count, a number, decimals or days). */
  limit?: number;
  /** With the `format` rule: the format the text must have (`uri`, `email`, `date`…). */
  format?: string;
  /** With `exactlyOneOf`: the alternatives; with `dateOrder`: the field it is compared with. */
  fields?: string[];
}

/**
 * The machine-readable code of an error body (what `errorBodyOf` returned): its `code`, or else its
 * `error` (a few bodies, such as the 409 `ReferenceIdAlreadyExists`, name it so); `undefined` when the
 * body has neither as a string. The code is returned as the body has it: the service writes some codes
 * bare and some with an `Error` suffix (`ReferenceIdAlreadyExists`, `ReferenceIdAlreadyExistsError`),
 * which a caller should treat as equal.
 */
export function errorCodeOf(body: unknown): string | undefined {
  if (!isBody(body)) return undefined;
  if (typeof body.code === "string") return body.code;
  if (typeof body.error === "string") return body.error;
  return undefined;
}

/**
 * The fields that failed validation, from an error body (what `errorBodyOf` returned) that has
 * `validationDetails` (a 400 `ValidationError`), in the body's order, with each entry's rule and bound
 * when present; entries without a string `field` and `message` are left out. Empty when the body has none.
 */
export function validationDetailsOf(body: unknown): ValidationDetailLike[] {
  if (!isBody(body) || !Array.isArray(body.validationDetails)) return [];
  const details: ValidationDetailLike[] = [];
  for (const detail of body.validationDetails as unknown[]) {
    if (!isBody(detail) || typeof detail.field !== "string" || typeof detail.message !== "string") continue;
    const { rule, limit, format, fields } = detail;
    details.push({
      field: detail.field,
      message: detail.message,
      ...(typeof rule === "string" ? { rule } : {}),
      ...(typeof limit === "number" ? { limit } : {}),
      ...(typeof format === "string" ? { format } : {}),
      ...(Array.isArray(fields) && fields.every((name) => typeof name === "string") ? { fields: fields as string[] } : {}),
    });
  }
  return details;
}

/** A parsed JSON object. An `Error` is not one: a Node error's own `code` (`ECONNREFUSED`) is no body's code. */
function isBody(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value) && !(value instanceof Error);
}
