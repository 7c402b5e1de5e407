// The daily statement: every transfer Cobro recorded on an Argentina day, one line each, with what became of
// its money (paid to a charge on arrival, assigned, returned, being returned, unresolved) and the
// commissions withheld, from what is recorded (never recomputed). The line's parts are read each from its
// own table, so the totals' equation (received = matched + assigned + returned + returning + unresolved)
// holds only when the money is all accounted for: the statement is the ledger's proof, not its assumption.
// A past day changes only by later resolutions of its own unmatched money, which its lines flag.
import { sql, type Kysely } from "kysely";
import type { Database } from "../../db/schema.ts";
import type { UnmatchedPaymentReason, UnmatchedPaymentState } from "../../db/tables/transfers.table.ts";
import type { components } from "../../generated/types/admin.ts";
import { addDays, argentinaDate, isCalendarDate, startOfArgentinaDay } from "../argentina-time.ts";
import { ValidationError } from "../errors.ts";
import { fromCents } from "../money.ts";
import { assignmentJson, assignmentViewOf, returnViewOf, type AssignmentRow, type ReturnRow } from "./unmatched-payments.ts";

export type DailyStatementView = components["schemas"]["DailyStatement"];
type DailyStatementLineView = components["schemas"]["DailyStatementLine"];

/** Whose transfers a statement holds. */
export type StatementScope =
  | { kind: "integration"; integrationClientId: string; merchantAccountId?: string }
  | { kind: "platform"; integrationClientId?: string; withoutIntegration?: boolean; merchantAccountId?: string };

/** The day asked for, checked against today (`now`: the caller's clock): a day to come has no statement yet. */
function statementDay(date: string, now: Date): { date: string; from: Date; until: Date } {
  if (!isCalendarDate(date)) throw ValidationError.of("date", "format", "date must be a real calendar date (YYYY-MM-DD)", { format: "date" });
  if (date > argentinaDate(now)) throw ValidationError.of("date", "outOfRange", "date is after today in Argentina: its statement does not exist yet");
  return { date, from: startOfArgentinaDay(date), until: startOfArgentinaDay(addDays(date, 1)) };
}

type LineRow = {
  transaction_id: string;
  receiving_cvu: string;
  sender_cuil: string | null;
  sender_name: string | null;
  operated_at: Date;
  recorded_at: Date;
  integration_client_id: string | null;
  merchant_account_id: string | null;
  charge_id: string | null;
  reference_id: string | null;
  unmatched_payment_id: string | null;
  reason: UnmatchedPaymentReason | null;
  state: UnmatchedPaymentState | null;
  gross_cents: string;
  unmatched_cents: string;
  unresolved_cents: string;
  assigned_cents: string;
  returned_cents: string;
  returning_cents: string;
  integration_commission_cents: string;
  service_commission_cents: string;
  merchant_net_cents: string;
  assignments: AssignmentRow[];
  returns: ReturnRow[];
  last_resolution_at: Date | null;
};

/** Each transfer of the day the scope sees, with its parts, oldest recorded first. */
async function lineRows(db: Kysely<Database>, scope: StatementScope, day: { from: Date; until: Date }): Promise<LineRow[]> {
  const owner = sql`coalesce(c.integration_client_id, u.integration_client_id)`;
  const merchant = sql`coalesce(c.merchant_account_id, u.merchant_account_id)`;
  const conditions = [sql`t.received_at >= ${day.from}::timestamptz`, sql`t.received_at < ${day.until}::timestamptz`];
  // An integration's statement always, the platform's when it names one.
  if (scope.kind === "integration" || scope.integrationClientId) conditions.push(sql`${owner} = ${scope.integrationClientId}::uuid`);
  if (scope.kind === "platform" && scope.withoutIntegration !== undefined)
    conditions.push(scope.withoutIntegration ? sql`${owner} is null` : sql`${owner} is not null`);
  if (scope.merchantAccountId) conditions.push(sql`${merchant} = ${scope.merchantAccountId}::uuid`);
  const result = await sql<LineRow>`
    select t.transaction_id, t.receiving_cvu, t.sender_cuil, t.sender_name, t.operated_at, t.received_at as recorded_at,
           ${owner} as integration_client_id, ${merchant} as merchant_account_id, t.charge_id, c.reference_id,
           u.id as unmatched_payment_id, u.reason, u.state,
           t.amount_cents::text as gross_cents,
           coalesce(u.amount_cents, 0)::text as unmatched_cents,
           coalesce(u.unresolved_cents, 0)::text as unresolved_cents,
           coalesce(a.assigned_cents, 0)::text as assigned_cents,
           coalesce(r.returned_cents, 0)::text as returned_cents,
           coalesce(r.returning_cents, 0)::text as returning_cents,
           coalesce(b.integration_commission_cents, 0)::text as integration_commission_cents,
           coalesce(b.service_commission_cents, 0)::text as service_commission_cents,
           coalesce(b.merchant_net_cents, 0)::text as merchant_net_cents,
           coalesce(a.assignments, '[]'::jsonb) as assignments,
           coalesce(r.returns, '[]'::jsonb) as returns,
           nullif(greatest(coalesce(a.last_at, '-infinity'), coalesce(r.last_at, '-infinity')), '-infinity') as last_resolution_at
      from transfers t
      left join charges c on c.id = t.charge_id
      left join unmatched_payments u on u.transfer_id = t.id
      left join lateral (
        select sum(x.amount_cents) as assigned_cents, max(x.assigned_at) as last_at,
               jsonb_agg(${assignmentJson("x", "xc")} order by x.seq) as assignments
          from unmatched_payment_assignments x join charges xc on xc.id = x.charge_id
         where x.unmatched_payment_id = u.id) a on true
      left join lateral (
        select sum(y.amount_cents) filter (where y.state = 'returned') as returned_cents,
               sum(y.amount_cents) filter (where y.state = 'requested') as returning_cents,
               max(y.requested_at) as last_at,
               jsonb_agg(to_jsonb(y) order by y.seq) as returns
          from unmatched_payment_returns y
         where y.unmatched_payment_id = u.id) r on true
      left join lateral (
        select sum(z.integration_commission_cents) as integration_commission_cents, sum(z.service_commission_cents) as service_commission_cents,
               sum(z.merchant_net_cents) as merchant_net_cents
          from payment_breakdowns z
         where z.transfer_id = t.id) b on true
     where ${sql.join(conditions, sql` and `)}
     order by t.received_at, t.transaction_id`.execute(db);
  return result.rows;
}

function lineOf(row: LineRow, until: Date): DailyStatementLineView & { cents: Record<Part, number> } {
  const cents = {
    gross: Number(row.gross_cents),
    matched: Number(row.gross_cents) - Number(row.unmatched_cents),
    assigned: Number(row.assigned_cents),
    returned: Number(row.returned_cents),
    returning: Number(row.returning_cents),
    unresolved: Number(row.unresolved_cents),
    integrationCommission: Number(row.integration_commission_cents),
    serviceCommission: Number(row.service_commission_cents),
    merchantNet: Number(row.merchant_net_cents),
  };
  const lastResolutionAt = row.last_resolution_at ? new Date(row.last_resolution_at) : undefined;
  return {
    cents,
    transactionId: row.transaction_id,
    cvu: row.receiving_cvu,
    ...(row.sender_cuil ? { payerCuil: row.sender_cuil } : {}),
    ...(row.sender_name ? { payerName: row.sender_name } : {}),
    receivedAt: row.operated_at.toISOString(),
    recordedAt: row.recorded_at.toISOString(),
    integrationClientId: row.integration_client_id,
    merchantUserId: row.merchant_account_id,
    ...(row.charge_id ? { paymentRequestId: row.charge_id, referenceId: row.reference_id! } : {}),
    ...(row.unmatched_payment_id ? { unmatchedPaymentId: row.unmatched_payment_id, unmatchedReason: row.reason!, unmatchedState: row.state! } : {}),
    grossAmount: fromCents(cents.gross),
    matchedAmount: fromCents(cents.matched),
    assignedAmount: fromCents(cents.assigned),
    returnedAmount: fromCents(cents.returned),
    returningAmount: fromCents(cents.returning),
    unresolvedAmount: fromCents(cents.unresolved),
    integrationCommissionAmount: fromCents(cents.integrationCommission),
    serviceCommissionAmount: fromCents(cents.serviceCommission),
    merchantNetAmount: fromCents(cents.merchantNet),
    assignments: row.assignments.map(assignmentViewOf),
    returns: row.returns.map(returnViewOf),
    ...(lastResolutionAt ? { lastResolutionAt: lastResolutionAt.toISOString() } : {}),
    resolvedAfterDay: lastResolutionAt !== undefined && lastResolutionAt >= until,
  };
}

type Part = "gross" | "matched" | "assigned" | "returned" | "returning" | "unresolved" | "integrationCommission" | "serviceCommission" | "merchantNet";

/** The statement of `date` for the scope, as of `now` (the caller's clock; a day after today is refused). */
export async function dailyStatement(db: Kysely<Database>, scope: StatementScope, date: string, now: Date): Promise<DailyStatementView> {
  const day = statementDay(date, now);
  const lines = (await lineRows(db, scope, day)).map((row) => lineOf(row, day.until));
  const sum = (part: Part) => lines.reduce((total, line) => total + line.cents[part], 0);
  return {
    date: day.date,
    from: day.from.toISOString(),
    until: day.until.toISOString(),
    dayComplete: now >= day.until,
    generatedAt: now.toISOString(),
    totals: {
      transferCount: lines.length,
      receivedAmount: fromCents(sum("gross")),
      matchedAmount: fromCents(sum("matched")),
      assignedAmount: fromCents(sum("assigned")),
      returnedAmount: fromCents(sum("returned")),
      returningAmount: fromCents(sum("returning")),
      unresolvedAmount: fromCents(sum("unresolved")),
      integrationCommissionAmount: fromCents(sum("integrationCommission")),
      serviceCommissionAmount: fromCents(sum("serviceCommission")),
      merchantNetAmount: fromCents(sum("merchantNet")),
      resolvedAfterDayCount: lines.filter((line) => line.resolvedAfterDay).length,
    },
    lines: lines.map(({ cents: _cents, ...line }) => line),
  };
}
