// Coverage by construction: the API apps run every state-changing admin operation through
// `auditedOperation`, which hands the operation a database handle whose first transaction to commit writes
// the entry just before its COMMIT (db/transactions.ts). So the entry of a change is written in the
// transaction that makes it, by whichever use case opens it; an operation that opened no transaction gets
// its entry right after it answers; a refusal (the change rolled back) gets an entry of its own with the
// refusal's code and status. An entry's status is the one sent: an operation that answers one of several
// (201 created, 200 found) names it before its change commits.
import type { Kysely } from "kysely";
import type { Database } from "../../db/schema.ts";
import type { AdminUser } from "../../db/tables/admins.table.ts";
import { withWorkAtFirstCommit } from "../../db/transactions.ts";
import type { Clock } from "../clock.ts";
import { appendAuditEntries, appendAuditEntry, auditEntriesInsert, type AuditActor, type AuditEntryInput } from "./audit-log.ts";

/** What the API app knows of an operation before it runs. */
export type AuditDraft = Omit<AuditEntryInput, "occurredAt" | "outcome" | "status" | "errorCode"> & {
  /**
   * The operation's documented success statuses. A committed change is recorded with the one the
   * operation names (`answersWith`), or with the only one there is.
   */
  successStatuses: number[];
};

/**
 * What an operation learns of its entry while it runs: who acts, for operations whose caller the API
 * cannot tell (a sign-in names its admin only once the email is found), and targets the path does not
 * name (the admin whose password reset was asked for). Read when the entry is written.
 */
export interface AuditEntryNotes {
  /** Names who acts; no effect once an actor is known. */
  identifyActor(actor: AuditActor): void;
  addTarget(name: string, id: string): void;
  /**
   * The success status the operation will answer with, named before its change commits (the entry is
   * written in that change's transaction, before the answer): required of an operation that documents
   * several (201 when it created, 200 when it found), whose entry is otherwise refused with its change.
   */
  answersWith(status: number): void;
}

/** The actor an admin's row names. */
export function adminActor(admin: Pick<AdminUser, "id" | "role" | "integration_client_id">): AuditActor {
  return admin.role === "INTEGRATION_ADMIN" && admin.integration_client_id !== null
    ? { kind: "integration_admin", adminUserId: admin.id, integrationClientId: admin.integration_client_id }
    : { kind: "platform_admin", adminUserId: admin.id };
}

/** What a use case that finds out which admin acts is given: names that admin as the entry's actor. */
export function actorNamedIn(notes: AuditEntryNotes | undefined): (admin: Parameters<typeof adminActor>[0]) => void {
  return (admin) => notes?.identifyActor(adminActor(admin));
}

export interface AuditedRun<T> {
  /** The status the operation answered with (its result's). */
  statusOf(result: T): number;
  /** The code and status a thrown error is answered with. */
  refusalOf(error: unknown): { status: number; code: string };
  /** A refusal's entry could not be written (the refusal is answered all the same). */
  onRecordFailure(error: unknown): void;
}

/**
 * Runs an audited operation: `run` gets the database handle whose first committed transaction writes the
 * entry, and the notes it may add to the entry.
 */
export async function auditedOperation<T>(
  db: Kysely<Database>,
  clock: Clock,
  draft: AuditDraft,
  how: AuditedRun<T>,
  run: (audited: { db: Kysely<Database>; notes: AuditEntryNotes }) => Promise<T>,
): Promise<T> {
  const { successStatuses, ...base } = draft;
  let actor = draft.actor;
  let targets = draft.targets;
  let answered = successStatuses.length === 1 ? successStatuses[0] : undefined;
  const notes: AuditEntryNotes = {
    identifyActor: (identified) => {
      if (actor.kind === "anonymous") actor = identified;
    },
    addTarget: (name, id) => {
      targets = { ...targets, [name]: id };
    },
    answersWith: (status) => {
      answered = status;
    },
  };
  /** The status a change that commits now is recorded with: the one the client will get, never a guess. */
  const committedStatus = (): number => {
    if (answered === undefined)
      throw new Error(`${draft.operation} answers one of ${successStatuses.join(", ")}: it must name its status (answersWith) before its change commits`);
    return answered;
  };
  const entry = (outcome: Pick<AuditEntryInput, "outcome" | "status" | "errorCode">): AuditEntryInput => ({
    ...base,
    actor,
    targets,
    occurredAt: clock.now(),
    ...outcome,
  });
  const committedEntry = () => entry({ outcome: "succeeded", status: committedStatus() });
  // As data too: a batch that takes several operations' entries into its transaction writes them at once,
  // in a statement of their own or as a part of the batch's last one.
  const atFirstCommit = withWorkAtFirstCommit(db, (trx) => appendAuditEntry(trx, committedEntry()), {
    doAll: appendAuditEntries,
    item: committedEntry,
    statementFor: auditEntriesInsert,
  });
  let result: T;
  try {
    result = await run({ db: atFirstCommit.db, notes });
  } catch (error) {
    atFirstCommit.close();
    await appendAuditEntry(db, entry(refusedOutcome(how.refusalOf(error)))).catch(how.onRecordFailure);
    throw error;
  }
  const committed = atFirstCommit.committed;
  atFirstCommit.close();
  if (!committed) {
    const status = how.statusOf(result);
    await appendAuditEntry(db, entry({ outcome: status < 400 ? "succeeded" : "refused", status }));
  }
  return result;
}

/** The entry of an operation refused before it ran (its request outside the contract): nothing to run, nothing changed. */
export async function appendRefusal(db: Kysely<Database>, clock: Clock, draft: AuditDraft, refusal: { status: number; code: string }): Promise<void> {
  const { successStatuses: _, ...base } = draft;
  await appendAuditEntry(db, { ...base, occurredAt: clock.now(), ...refusedOutcome(refusal) });
}

function refusedOutcome(refusal: { status: number; code: string }): Pick<AuditEntryInput, "outcome" | "status" | "errorCode"> {
  return { outcome: "refused", status: refusal.status, errorCode: refusal.code };
}
