// Coverage by construction: the API apps run every state-changing admin operation inside
// `auditedOperation`, which makes its entry the pending commit work (db/transactions.ts). So the entry of a
// change is written in the transaction that makes it, by whichever use case opens it; an operation that
// opened no transaction gets its entry right after it answers; a refusal (the change rolled back) gets an
// entry of its own with the refusal's code and status.
import { AsyncLocalStorage } from "node:async_hooks";
import type { Kysely } from "kysely";
import type { Database } from "../../db/schema.ts";
import { withCommitWork } from "../../db/transactions.ts";
import type { Clock } from "../clock.ts";
import { appendAuditEntry, type AuditActor, type AuditEntryInput } from "./audit-log.ts";

/** What the API app knows of an operation before it runs. */
export type AuditDraft = Omit<AuditEntryInput, "occurredAt" | "outcome" | "status" | "errorCode"> & {
  /** The operation's documented success status: what a committed change is recorded with. */
  successStatus: number;
};

const currentDraft = new AsyncLocalStorage<AuditDraft>();

/**
 * Names who acts, for operations whose caller the API cannot tell (a sign-in names its admin only once the
 * email is found). No effect outside an audited operation or once an actor is known.
 */
export function identifyAuditActor(actor: AuditActor): void {
  const draft = currentDraft.getStore();
  if (draft && draft.actor.kind === "anonymous") draft.actor = actor;
}

/** The actor an admin's row names. */
export function adminActor(admin: { id: string; role: "PLATFORM_ADMIN" | "INTEGRATION_ADMIN"; integration_client_id: string | null }): AuditActor {
  return admin.role === "INTEGRATION_ADMIN" && admin.integration_client_id !== null
    ? { kind: "integration_admin", adminUserId: admin.id, integrationClientId: admin.integration_client_id }
    : { kind: "platform_admin", adminUserId: admin.id };
}

/** Adds a target the path does not name (the admin whose password reset was asked for). */
export function addAuditTarget(name: string, id: string): void {
  const draft = currentDraft.getStore();
  if (draft) draft.targets = { ...draft.targets, [name]: id };
}

export interface AuditedRun<T> {
  /** The status the operation answered with (its result's). */
  statusOf(result: T): number;
  /** The code and status a thrown error is answered with. */
  refusalOf(error: unknown): { status: number; code: string };
  /** A refusal's entry could not be written (the refusal is answered all the same). */
  onRecordFailure(error: unknown): void;
}

export async function auditedOperation<T>(db: Kysely<Database>, clock: Clock, draft: AuditDraft, how: AuditedRun<T>, run: () => Promise<T>): Promise<T> {
  const { successStatus, ...base } = draft;
  const entry = (outcome: Pick<AuditEntryInput, "outcome" | "status" | "errorCode">): AuditEntryInput => ({
    ...base,
    actor: draft.actor,
    targets: draft.targets,
    occurredAt: clock.now(),
    ...outcome,
  });
  return currentDraft.run(draft, () =>
    withCommitWork(
      (trx) => appendAuditEntry(trx, entry({ outcome: "succeeded", status: successStatus })),
      async (work) => {
        let result: T;
        try {
          result = await run();
        } catch (error) {
          work.close();
          const refusal = how.refusalOf(error);
          await appendAuditEntry(db, entry({ outcome: "refused", status: refusal.status, errorCode: refusal.code })).catch(how.onRecordFailure);
          throw error;
        }
        const committed = work.committed;
        work.close();
        if (!committed) {
          const status = how.statusOf(result);
          await appendAuditEntry(db, entry({ outcome: status < 400 ? "succeeded" : "refused", status }));
        }
        return result;
      },
    ),
  );
}
