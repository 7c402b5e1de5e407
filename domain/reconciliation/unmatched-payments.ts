// Unmatched payments: the money Cobro received and did not apply to a charge (a whole transfer it could not
// match, or a payment's excess over what its charge owed), recorded by reconcile-batch.ts with the transfer.
// Who sees which: an integration's admins, its own (of merchant accounts still linked); the Integration
// API, the token's merchant account's for its integration; the platform admin, all of them, the transfers
// to a CVU no charge held (which belong to no integration) included.
import { sql, type Kysely } from "kysely";
import type { Database } from "../../db/schema.ts";
import type { UnmatchedPaymentReason, UnmatchedPaymentReturnState, UnmatchedPaymentState } from "../../db/tables/transfers.table.ts";
import type { components } from "../../generated/types/admin.ts";
import { DomainError, ValidationError } from "../errors.ts";
import { ofUnlinkedMerchant } from "../merchants/unlinked-merchants.ts";
import { fromCents } from "../money.ts";

export type UnmatchedPaymentView = components["schemas"]["UnmatchedPayment"];

/** Whose unmatched payments a caller sees. */
export type UnmatchedPaymentScope =
  | { kind: "integration"; integrationClientId: string }
  | { kind: "merchant"; integrationClientId: string; merchantAccountId: string }
  | { kind: "platform" };

export interface UnmatchedPaymentFilters {
  state?: UnmatchedPaymentState;
  reason?: UnmatchedPaymentReason;
  merchantAccountId?: string;
  integrationClientId?: string;
  /** true: only those of no integration; false: only those of one. */
  withoutIntegration?: boolean;
  /** Transfers made at or after `from`, before `to` (ISO 8601 instants, as the contract validated them). */
  from?: string;
  to?: string;
}

function visibleTo(scope: UnmatchedPaymentScope, db: Kysely<Database>) {
  let query = db.selectFrom("unmatched_payments as u").innerJoin("transfers as t", "t.id", "u.transfer_id").leftJoin("charges as c", "c.id", "u.charge_id");
  if (scope.kind === "integration") {
    query = query.where("u.integration_client_id", "=", scope.integrationClientId).where(sql<boolean>`not ${ofUnlinkedMerchant("u")}`);
  } else if (scope.kind === "merchant") {
    query = query.where("u.integration_client_id", "=", scope.integrationClientId).where("u.merchant_account_id", "=", scope.merchantAccountId);
  }
  return query;
}

/**
 * The unmatched payment `scope` sees, locked, its transfer joined as `t`: what an assignment or a return acts
 * on. The same visibility as the reads, so an action is refused (404) exactly where the payment cannot be read.
 */
export function lockedUnmatchedPayment(trx: Kysely<Database>, scope: UnmatchedPaymentScope, unmatchedPaymentId: string) {
  return visibleTo(scope, trx).where("u.id", "=", unmatchedPaymentId).forUpdate("u");
}

const COLUMNS = [
  "u.id",
  "u.reason",
  "u.amount_cents",
  "u.unresolved_cents",
  "u.integration_client_id",
  "u.merchant_account_id",
  "u.charge_id",
  "u.state",
  "u.received_at",
  "u.recorded_at",
  "u.resolved_at",
  "t.transaction_id",
  "t.receiving_cvu",
  "t.sender_cuil",
  "t.sender_name",
  "t.amount_cents as transfer_amount_cents",
  "c.reference_id",
  // What resolved it so far, oldest first.
  sql<AssignmentRow[]>`coalesce((
    select jsonb_agg(${assignmentJson("a", "ac")} order by a.seq)
      from unmatched_payment_assignments a join charges ac on ac.id = a.charge_id
     where a.unmatched_payment_id = u.id), '[]'::jsonb)`.as("assignments"),
  // Its returns, oldest first.
  sql<ReturnRow[]>`coalesce((
    select jsonb_agg(to_jsonb(r) order by r.seq)
      from unmatched_payment_returns r
     where r.unmatched_payment_id = u.id), '[]'::jsonb)`.as("returns"),
] as const;

/** An assignment as its JSON reads (assignmentJson; timestamps as text). */
export type AssignmentRow = { charge_id: string; reference_id: string; amount_cents: number; assigned_at: string };

/** An assignment (`assignment`, an unmatched_payment_assignments alias) and its charge (`charge`) as JSON, for assignmentViewOf. */
export function assignmentJson(assignment: string, charge: string) {
  const a = sql.ref(assignment);
  const c = sql.ref(charge);
  return sql<AssignmentRow>`jsonb_build_object('charge_id', ${a}.charge_id, 'reference_id', ${c}.reference_id, 'amount_cents', ${a}.amount_cents, 'assigned_at', ${a}.assigned_at)`;
}

/** The contract's view of an assignment. */
export function assignmentViewOf(row: AssignmentRow): components["schemas"]["UnmatchedPaymentAssignmentRecord"] {
  return {
    paymentRequestId: row.charge_id,
    referenceId: row.reference_id,
    amount: fromCents(Number(row.amount_cents)),
    assignedAt: new Date(row.assigned_at).toISOString(),
  };
}

/** A return as its row reads in JSON (timestamps as text). */
export type ReturnRow = {
  id: string;
  amount_cents: number | string;
  state: UnmatchedPaymentReturnState;
  to_cvu: string | null;
  to_cuil: string | null;
  simulate_failure: boolean;
  requested_at: string | Date;
  completed_at: string | Date | null;
  failure_reason: string | null;
};

export type UnmatchedPaymentReturnView = components["schemas"]["UnmatchedPaymentReturnRecord"];

/** The contract's view of a return. */
export function returnViewOf(row: ReturnRow): UnmatchedPaymentReturnView {
  return {
    returnId: row.id,
    amount: fromCents(Number(row.amount_cents)),
    state: row.state,
    ...(row.to_cvu ? { toCvu: row.to_cvu } : {}),
    ...(row.to_cuil ? { toCuil: row.to_cuil } : {}),
    requestedAt: new Date(row.requested_at).toISOString(),
    ...(row.completed_at ? { completedAt: new Date(row.completed_at).toISOString() } : {}),
    ...(row.failure_reason ? { failureReason: row.failure_reason } : {}),
    ...(row.simulate_failure ? { simulatedFailure: true } : {}),
  };
}

/** A page of the unmatched payments the scope sees, newest transfer first, filtered. */
export async function listUnmatchedPayments(
  db: Kysely<Database>,
  scope: UnmatchedPaymentScope,
  filters: UnmatchedPaymentFilters,
  page: { limit: number; offset: number },
): Promise<{ items: UnmatchedPaymentView[]; total: number }> {
  if (filters.from !== undefined && filters.to !== undefined && Date.parse(filters.from) >= Date.parse(filters.to)) {
    throw ValidationError.of("to", "dateOrder", "to must be after from", { fields: ["from"] });
  }
  let base = visibleTo(scope, db);
  if (filters.state) base = base.where("u.state", "=", filters.state);
  if (filters.reason) base = base.where("u.reason", "=", filters.reason);
  if (filters.merchantAccountId) base = base.where("u.merchant_account_id", "=", filters.merchantAccountId);
  if (filters.integrationClientId) base = base.where("u.integration_client_id", "=", filters.integrationClientId);
  if (filters.withoutIntegration !== undefined) base = base.where("u.integration_client_id", filters.withoutIntegration ? "is" : "is not", null);
  if (filters.from) base = base.where("u.received_at", ">=", new Date(filters.from));
  if (filters.to) base = base.where("u.received_at", "<", new Date(filters.to));
  const [rows, count] = await Promise.all([
    base.select(COLUMNS).orderBy("u.received_at", "desc").orderBy("u.id").limit(page.limit).offset(page.offset).execute(),
    base.select((eb) => eb.fn.countAll<string>().as("total")).executeTakeFirstOrThrow(),
  ]);
  return { items: rows.map(viewOf), total: Number(count.total) };
}

/** One unmatched payment the scope sees; UnmatchedPaymentNotFoundError otherwise. */
export async function getUnmatchedPayment(db: Kysely<Database>, scope: UnmatchedPaymentScope, unmatchedPaymentId: string): Promise<UnmatchedPaymentView> {
  const row = await visibleTo(scope, db).select(COLUMNS).where("u.id", "=", unmatchedPaymentId).executeTakeFirst();
  if (!row) throw new DomainError("UnmatchedPaymentNotFoundError", "No unmatched payment with this unmatchedPaymentId");
  return viewOf(row);
}

type Row = {
  id: string;
  reason: UnmatchedPaymentReason;
  amount_cents: number;
  unresolved_cents: number;
  integration_client_id: string | null;
  merchant_account_id: string | null;
  charge_id: string | null;
  state: UnmatchedPaymentState;
  received_at: Date;
  recorded_at: Date;
  resolved_at: Date | null;
  transaction_id: string;
  receiving_cvu: string;
  sender_cuil: string | null;
  sender_name: string | null;
  transfer_amount_cents: number;
  reference_id: string | null;
  assignments: AssignmentRow[];
  returns: ReturnRow[];
};

function viewOf(row: Row): UnmatchedPaymentView {
  return {
    unmatchedPaymentId: row.id,
    transactionId: row.transaction_id,
    cvu: row.receiving_cvu,
    ...(row.sender_cuil ? { payerCuil: row.sender_cuil } : {}),
    ...(row.sender_name ? { payerName: row.sender_name } : {}),
    amount: fromCents(row.amount_cents),
    unresolvedAmount: fromCents(row.unresolved_cents),
    transferAmount: fromCents(row.transfer_amount_cents),
    receivedAt: row.received_at.toISOString(),
    recordedAt: row.recorded_at.toISOString(),
    reason: row.reason,
    integrationClientId: row.integration_client_id,
    merchantUserId: row.merchant_account_id,
    ...(row.charge_id ? { paymentRequestId: row.charge_id } : {}),
    ...(row.reference_id ? { referenceId: row.reference_id } : {}),
    state: row.state,
    ...(row.resolved_at ? { resolvedAt: row.resolved_at.toISOString() } : {}),
    assignments: row.assignments.map(assignmentViewOf),
    returns: row.returns.map(returnViewOf),
  };
}
