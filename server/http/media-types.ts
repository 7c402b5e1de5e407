// What the request's media type decides, beside openapi-backend's JSON validation: a body sent as a media
// type the operation does not declare is refused, and a body of another declared media type (the token
// endpoint's RFC 6749 form) is validated here against that media type's schema.
import { Ajv as AjvClass, type Ajv, type ErrorObject, type ValidateFunction } from "ajv";
import addFormats from "ajv-formats";
import type { Request } from "express";
import type { Context, Operation } from "openapi-backend";
import type { FieldProblem } from "../../domain/errors.ts";
import { validationProblems } from "./validation-details.ts";

/**
 * Body validation for the media types openapi-backend does not validate: a request whose Content-Type is
 * not the operation's JSON one, on an operation that declares both (and no parameters to validate).
 */
export class OtherMediaTypeValidation {
  readonly #ajv = new AjvClass({ allErrors: true, strict: false, multipleOfPrecision: 8 });
  readonly #compiled = new Map<string, ValidateFunction>();

  constructor() {
    addContractFormats(this.#ajv as unknown as Ajv);
    for (const format of ["int32", "int64", "float", "double", "byte", "binary", "password"]) this.#ajv.addFormat(format, true);
  }

  #mediaType(context: Context): string {
    const header = context.request.headers?.["content-type"];
    return String((Array.isArray(header) ? header[0] : header) ?? "")
      .split(";")[0]!
      .trim()
      .toLowerCase();
  }

  applies(context: Context): boolean {
    const content = (context.operation?.requestBody as { content?: Record<string, unknown> } | undefined)?.content ?? {};
    const mediaType = this.#mediaType(context);
    return "application/json" in content && mediaType !== "application/json" && mediaType in content && (context.operation.parameters ?? []).length === 0;
  }

  problems(context: Context, body: unknown): FieldProblem[] | undefined {
    const mediaType = this.#mediaType(context);
    const key = `${context.operation.operationId}\u0000${mediaType}`;
    let validate = this.#compiled.get(key);
    if (!validate) {
      const schema = (context.operation.requestBody as { content: Record<string, { schema: object }> }).content[mediaType]!.schema;
      validate = this.#ajv.compile({ type: "object", properties: { requestBody: schema }, required: ["requestBody"] });
      this.#compiled.set(key, validate);
    }
    return validate({ requestBody: body }) ? undefined : validationProblems((validate.errors ?? []) as ErrorObject[]);
  }
}

/**
 * `format: uri` judged by RFC 3986 (ajv-formats' "full" rule) rather than the "fast" mode's "a scheme, then
 * no whitespace", which let control characters through (`https://\u0084`) into stored logo and webhook URLs.
 */
function strictUriFormat(ajv: Ajv): void {
  ajv.addFormat("uri", addFormats.default.get("uri", "full"));
}

/** The refusal of a body sent as a media type the operation does not declare (none when it declares no body). */
export function requestContentTypeProblem(operation: Operation, req: Request): FieldProblem | undefined {
  const declared = Object.keys((operation.requestBody as { content?: Record<string, unknown> } | undefined)?.content ?? {});
  if (declared.length === 0) return undefined;
  const sent = (req.headers["content-type"] ?? "").split(";")[0]!.trim().toLowerCase();
  if (sent !== "" && declared.some((type) => type === sent)) return undefined;
  if (sent === "" && req.body !== undefined) return undefined;
  return { field: "body", rule: "malformed", message: `body must be sent as ${declared.join(" or ")}${sent ? `, not ${sent}` : ""}` };
}

/**
 * The refusal of a body that a JSON operation receives in a media type it does not declare (a form posted
 * where JSON is expected), even when that body would pass validation. Operations that take no JSON (the
 * logo's images) judge their media type themselves.
 */
export function undeclaredJsonAlternative(operation: Operation, req: Request): FieldProblem | undefined {
  const declared = (operation.requestBody as { content?: Record<string, unknown> } | undefined)?.content ?? {};
  if (!("application/json" in declared) || !carriesBody(req)) return undefined;
  return requestContentTypeProblem(operation, req);
}

/** Whether the request has a body (a length above 0, or a chunked one). */
function carriesBody(req: Request): boolean {
  const length = req.headers["content-length"];
  return length !== undefined ? length !== "0" : req.headers["transfer-encoding"] !== undefined;
}

/**
 * `format: email` judged by ajv-formats' "full" rule, which wants a dot-separated domain, rather than the
 * "fast" mode's, which took `a@b` and `x@localhost`: addresses no mail reaches, accepted for invitations.
 */
function strictEmailFormat(ajv: Ajv): void {
  ajv.addFormat("email", addFormats.default.get("email", "full"));
}

/** The Ajv options of openapi-backend's request validators (the parameters' ones add type coercion). */
export const REQUEST_AJV_OPTIONS = { allErrors: true, multipleOfPrecision: 8 } as const;

/** The string formats of the contract's schemas, as every validator of a request judges them. */
export function addContractFormats(ajv: Ajv): void {
  addFormats.default(ajv, { mode: "fast", keywords: false });
  strictUriFormat(ajv);
  strictEmailFormat(ajv);
}
