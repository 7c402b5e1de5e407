// Everything the API apps do for the audit log (domain/audit/), behind two hooks: an audited operation's
// handler runs inside `auditedOperation` and is given its database handle, whose first committed
// transaction writes the entry, and the notes it may add to it; a request refused before its handler ran
// is recorded all the same. Which operations are audited, and who acts in them, is the API's policy
// (audit-policy.ts).
import type { Request, Response } from "express";
import type { Context, Operation } from "openapi-backend";
import { DomainError } from "../../domain/errors.ts";
import { appendRefusal, auditedOperation, type AuditDraft } from "../../domain/audit/audited-operation.ts";
import { bodyFieldNames, recordedValues } from "../../domain/audit/recorded-fields.ts";
import type { HandlerContext, Services } from "../../handlers/handler-types.ts";
import type { ApiName } from "../../runtime/config.ts";
import type { AuditPolicy } from "./audit-policy.ts";
import { clientAddressOf } from "./client-address.ts";
import { replyForError, unexpectedErrorReply } from "./error-responses.ts";
import type { RequestLocals } from "./request-identity.ts";
import { callerOf } from "./security-handlers.ts";

/** What an operation's handler is given by the audit step: the services (their `db` the audited handle) and the entry's notes. */
export type AuditedStep = Pick<HandlerContext<unknown, unknown>, "services" | "audit">;

export interface AuditHooks {
  /** Runs an operation's handler: inside its audit entry, through the audited handle, when the operation is audited; as it is otherwise. */
  runAudited<T extends { status: number }>(context: Context, req: Request, res: Response, run: (step: AuditedStep) => Promise<T>): Promise<T>;
  /** Records a request refused before its handler ran, when its operation is audited (never fails). */
  recordRefusal(context: Context, req: Request, res: Response, refusal: DomainError): Promise<void>;
}

export interface AuditHooksOptions<Caller> {
  api: ApiName;
  /** The operations that write an audit entry, and who their caller is in one; none without it. */
  audit?: AuditPolicy<Caller>;
  anonymous: Caller;
  services: Services;
}

export function auditHooks<Caller>(options: AuditHooksOptions<Caller>, operations: Operation[]): AuditHooks {
  const { api, services } = options;
  // Whether an operation is audited depends only on the operation: worked out here, once.
  const auditedOperations = new Set(
    operations.filter((operation) => options.audit?.audits({ operationId: operation.operationId!, method: operation.method })).map((o) => o.operationId!),
  );

  /** The audit entry's draft for an audited operation (undefined for the others). */
  function auditDraft(context: Context, req: Request, res: Response, { withBody }: { withBody: boolean }): AuditDraft | undefined {
    const operation = context.operation;
    if (!options.audit || !auditedOperations.has(operation.operationId!)) return undefined;
    const params = Object.fromEntries(Object.entries(context.request.params ?? {}).map(([name, value]) => [name, String(value)]));
    return {
      api: api as "admin" | "auth",
      operation: operation.operationId!,
      method: operation.method.toUpperCase(),
      route: operation.path,
      actor: options.audit.actorOf(callerOf(context, options.anonymous)),
      targets: params,
      fields: withBody ? bodyFieldNames(req.body) : [],
      changes: withBody ? recordedValues(req.body) : {},
      clientAddress: clientAddressOf(req),
      requestId: (res.locals as RequestLocals).requestId,
      successStatuses: successStatusesOf(operation),
    };
  }

  function auditRun<T>(res: Response, statusOf: (answer: T) => number) {
    return {
      statusOf,
      refusalOf: (error: unknown) => {
        const reply =
          error instanceof DomainError
            ? replyForError(error, (res.locals as RequestLocals).requestId, api)
            : unexpectedErrorReply(error, (res.locals as RequestLocals).requestId, api);
        return { status: reply.status, code: error instanceof DomainError ? error.code : ((reply.body as { code?: string }).code ?? "InternalError") };
      },
      onRecordFailure: (error: unknown) => (res.locals as RequestLocals).log().error({ err: error }, "the audit entry of a refusal could not be written"),
    };
  }

  // What an operation that is not audited runs with: the service's own, the same for every request.
  const unaudited: AuditedStep = { services };
  return {
    async runAudited(context, req, res, run) {
      const draft = auditDraft(context, req, res, { withBody: true });
      return draft
        ? await auditedOperation(
            services.db,
            services.clock,
            draft,
            auditRun(res, (answer) => answer.status),
            (audited) => run({ services: { ...services, db: audited.db }, audit: audited.notes }),
          )
        : await run(unaudited);
    },
    async recordRefusal(context, req, res, refusal) {
      const draft = auditDraft(context, req, res, { withBody: false });
      if (!draft) return;
      const how = auditRun(res, () => 0);
      await appendRefusal(services.db, services.clock, draft, how.refusalOf(refusal)).catch(how.onRecordFailure);
    },
  };
}

/** The operation's documented success statuses (its 2xx). */
function successStatusesOf(operation: Operation): number[] {
  const statuses = Object.keys(operation.responses ?? {})
    .map(Number)
    .filter((status) => status >= 200 && status < 300);
  return statuses.length > 0 ? statuses : [200];
}
