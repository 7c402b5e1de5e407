// The contract's operations: each handler registered with openapi-backend, run after the request's own
// checks beyond the schema and inside its audit, its answer written by answering.ts; and the middleware
// that hands every request to openapi-backend.
import type { NextFunction, Request, RequestHandler, Response } from "express";
import type { Context } from "openapi-backend";
import { DomainError, ValidationError } from "../../domain/errors.ts";
import { notImplemented, type AnyOperationHandler, type HandlerContext, type NotImplemented, type Services } from "../../handlers/handler-types.ts";
import type { Answering, HandlerAnswer } from "./answering.ts";
import type { AuditedStep, AuditHooks } from "./audit-hooks.ts";
import { clientAddressOf } from "./client-address.ts";
import type { ContractBackend } from "./contract-backend.ts";
import { undeclaredJsonAlternative } from "./media-types.ts";
import { knownQuery } from "./operation-routing.ts";
import type { RequestLocals } from "./request-identity.ts";
import { callerOf } from "./security-handlers.ts";
import { nulCharacterProblems } from "./validation-details.ts";

export interface OperationsOptions<Caller> {
  handlers: Record<string, AnyOperationHandler | NotImplemented>;
  /** The caller of operations that need no authentication. */
  anonymous: Caller;
  services: Services;
}

/** Registers each operation's handler; returns the operations of the contract that have none yet (they answer 501). */
export function registerOperations<Caller>(contract: ContractBackend, options: OperationsOptions<Caller>, answers: Answering, audit: AuditHooks): string[] {
  const { backend } = contract;
  const notImplementedOperations: string[] = [];
  for (const operation of contract.operations) {
    const operationId = operation.operationId!;
    const handler = options.handlers[operationId];
    if (handler === undefined || handler === notImplemented) {
      notImplementedOperations.push(operationId);
      continue;
    }
    const answer = answers.answerOf(operationId);
    backend.registerHandler(operationId, async (context: Context, req: Request, res: Response) => {
      answers.atOperation(res, operationId);
      const result = await audit.runAudited(context, req, res, (step) => runHandler(context, req, res.locals as RequestLocals, handler, step));
      return answer(res, context, result);
    });
  }
  return notImplementedOperations;

  /** The request's own checks beyond the schema, then the operation's handler. */
  async function runHandler(
    context: Context,
    req: Request,
    locals: RequestLocals,
    handler: AnyOperationHandler,
    { services, audit }: AuditedStep,
  ): Promise<HandlerAnswer> {
    if (contract.otherMediaValidation.applies(context)) {
      const problems = contract.otherMediaValidation.problems(context, req.body);
      if (problems) throw new ValidationError(problems);
    }
    const mediaTypeProblem = undeclaredJsonAlternative(context.operation, req);
    if (mediaTypeProblem) throw new ValidationError([mediaTypeProblem]);
    const nul = [
      ...nulCharacterProblems(context.request.params ?? {}),
      ...nulCharacterProblems(context.request.query ?? {}),
      ...nulCharacterProblems(req.body),
    ];
    if (nul.length > 0) throw new ValidationError(nul);
    const caller = callerOf(context, options.anonymous);
    const handlerContext: HandlerContext<unknown, Caller> = {
      body: req.body as never,
      query: (context.request.query ?? {}) as never,
      params: (context.request.params ?? {}) as never,
      headers: req.headers,
      clientAddress: clientAddressOf(req),
      caller,
      services,
      get log() {
        return locals.log();
      },
      requestId: locals.requestId,
      audit,
    };
    return (await (handler as (context: HandlerContext<unknown, Caller>) => Promise<unknown>)(handlerContext)) as HandlerAnswer;
  }
}

/** Every request that reaches the contract: a method a concrete path does not have is a 405, the rest is openapi-backend's. */
export function contractRoutes({ backend, concretePaths }: ContractBackend, { fail }: Pick<Answering, "fail">): RequestHandler {
  return async (req: Request, res: Response, next: NextFunction) => {
    const concrete = concretePaths.get(req.path);
    if (concrete && !concrete.includes(req.method) && !(req.method === "HEAD" && concrete.includes("GET"))) {
      return fail(
        res,
        new DomainError("MethodNotAllowed", `${req.method} is not allowed on ${req.path}; use ${concrete.join(", ")}`, {
          headers: { Allow: concrete.join(", ") },
        }),
      );
    }
    try {
      await backend.handleRequest(
        { method: req.method, path: req.path, headers: req.headers as Record<string, string | string[]>, query: knownQuery(backend, req), body: req.body },
        req,
        res,
      );
    } catch (error) {
      next(error);
    }
  };
}
