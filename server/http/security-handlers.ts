// Who calls: each security scheme of the contract has a handler that names the caller or refuses, run by
// openapi-backend before the operation; the operation's handler gets the caller it named.
import type { Request } from "express";
import type { Context, OpenAPIBackend } from "openapi-backend";
import type { DomainError } from "../../domain/errors.ts";

/** Decides who calls, for one security scheme of the contract. Returns the caller, or a reason to refuse. */
export type SecurityHandler<Caller> = (request: {
  headers: Request["headers"];
  operationId: string;
  path: string;
  /** The body's exact bytes (for signatures over the body). */
  rawBody: Buffer | undefined;
}) => Promise<{ caller: Caller } | { refused: DomainError }>;

export function registerSecurityHandlers<Caller>(backend: OpenAPIBackend, security: Record<string, SecurityHandler<Caller>>): void {
  for (const [scheme, handler] of Object.entries(security)) {
    backend.registerSecurityHandler(scheme, async (context: Context, req: Request) => {
      const result = await handler({
        headers: (context.request.headers ?? {}) as Request["headers"],
        operationId: context.operation.operationId!,
        path: context.operation.path,
        rawBody: (req as Request & { rawBody?: Buffer }).rawBody,
      });
      // openapi-backend treats an object with a truthy `error` as a refusal.
      return "caller" in result ? result : { error: true, refused: result.refused };
    });
  }
}

/** The caller a security handler named for this request, or `anonymous` for an operation that needs none. */
export function callerOf<Caller>(context: Context, anonymous: Caller): Caller {
  for (const result of Object.values(context.security ?? {})) {
    if (typeof result === "object" && result !== null && "caller" in result) return (result as { caller: Caller }).caller;
  }
  return anonymous;
}
