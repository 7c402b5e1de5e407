// The money as each admin sees it, read from the payments' recorded breakdowns (never recomputed): the
// integration its own commissions, payment by payment; the platform every part, per integration. Sums are
// of integer cents, so totals add up to the cent.
import { sql, type Kysely } from "kysely";
import type { Database } from "../../db/schema.ts";
import { addDays, argentinaDate, daysBetween, isCalendarDate, startOfArgentinaDay } from "../argentina-time.ts";
import { ValidationError } from "../errors.ts";

export const MAX_REPORT_DAYS = 366;

/** Argentina days, both inclusive, and the instants they span. */
export interface ReportRange {
  startDate: string;
  endDate: string;
  from: Date;
  /** Exclusive: the start of the day after `endDate`. */
  until: Date;
}

/** The range asked for; without dates, the current month up to today (`now`: the caller's clock). */
export function reportRange(query: { startDate?: string; endDate?: string }, now: Date): ReportRange {
  for (const field of ["startDate", "endDate"] as const) {
    const date = query[field];
    if (date !== undefined && !isCalendarDate(date))
      throw ValidationError.of(field, "format", `${field} must be a real calendar date (YYYY-MM-DD)`, { format: "date" });
  }
  const today = argentinaDate(now);
  const endDate = query.endDate ?? today;
  const startDate = query.startDate ?? (query.endDate ? `${query.endDate.slice(0, 8)}01` : `${today.slice(0, 8)}01`);
  if (startDate > endDate) throw ValidationError.of("startDate", "dateOrder", "startDate must not be after endDate", { fields: ["endDate"] });
  if (daysBetween(startDate, endDate) + 1 > MAX_REPORT_DAYS)
    throw ValidationError.of("endDate", "outOfRange", `a report covers at most ${MAX_REPORT_DAYS} days`, { limit: MAX_REPORT_DAYS });
  return { startDate, endDate, from: startOfArgentinaDay(startDate), until: startOfArgentinaDay(addDays(endDate, 1)) };
}

export interface EarningsRow {
  paymentId: string;
  paymentRequestId: string;
  referenceId: string;
  merchantUserId: string;
  merchantName: string;
  receivedAt: Date;
  grossCents: number;
  commissionPercentage: string;
  commissionFixedCents: number;
  commissionCents: number;
}

function integrationPayments(db: Kysely<Database>, integrationClientId: string, range: ReportRange) {
  return db
    .selectFrom("payment_breakdowns as b")
    .where("b.integration_client_id", "=", integrationClientId)
    .where("b.received_at", ">=", range.from)
    .where("b.received_at", "<", range.until);
}

function rowsOf(db: Kysely<Database>, integrationClientId: string, range: ReportRange) {
  return integrationPayments(db, integrationClientId, range)
    .innerJoin("charges as c", "c.id", "b.charge_id")
    .innerJoin("merchant_accounts as m", "m.id", "b.merchant_account_id")
    .select([
      "b.transfer_id as paymentId",
      "b.charge_id as paymentRequestId",
      "c.reference_id as referenceId",
      "b.merchant_account_id as merchantUserId",
      "m.fantasy_name as merchantName",
      "b.received_at as receivedAt",
      "b.gross_cents as grossCents",
      "b.integration_commission_percentage as commissionPercentage",
      "b.integration_commission_fixed_cents as commissionFixedCents",
      "b.integration_commission_cents as commissionCents",
    ]);
}

/** The integration's commissions: a page of payments, newest first, and the totals of the whole range. */
export async function integrationEarnings(db: Kysely<Database>, integrationClientId: string, range: ReportRange, page: { limit: number; offset: number }) {
  const [items, totals] = await Promise.all([
    rowsOf(db, integrationClientId, range).orderBy("b.received_at", "desc").orderBy("b.transfer_id").limit(page.limit).offset(page.offset).execute(),
    integrationPayments(db, integrationClientId, range)
      .select([
        sql<number>`count(*)::int8`.as("paymentCount"),
        sql<number>`coalesce(sum(b.gross_cents), 0)::int8`.as("grossCents"),
        sql<number>`coalesce(sum(b.integration_commission_cents), 0)::int8`.as("commissionCents"),
      ])
      .executeTakeFirstOrThrow(),
  ]);
  return { items: items as EarningsRow[], totals };
}

/** Every payment of the range, oldest first, for the CSV export. */
export async function* integrationEarningsInOrder(
  db: Kysely<Database>,
  integrationClientId: string,
  range: ReportRange,
  batchSize = 1000,
): AsyncGenerator<EarningsRow> {
  let after: { receivedAt: Date; paymentId: string } | undefined;
  for (;;) {
    let query = rowsOf(db, integrationClientId, range);
    if (after) {
      const cursor = after;
      query = query.where((eb) =>
        eb.or([eb("b.received_at", ">", cursor.receivedAt), eb.and([eb("b.received_at", "=", cursor.receivedAt), eb("b.transfer_id", ">", cursor.paymentId)])]),
      );
    }
    const rows = (await query.orderBy("b.received_at").orderBy("b.transfer_id").limit(batchSize).execute()) as EarningsRow[];
    yield* rows;
    if (rows.length < batchSize) return;
    const last = rows[rows.length - 1]!;
    after = { receivedAt: last.receivedAt, paymentId: last.paymentId };
  }
}

export interface PlatformEarningsRow {
  integrationClientId: string;
  integrationName: string;
  paymentCount: number;
  grossCents: number;
  integrationCommissionCents: number;
  serviceCommissionCents: number;
  merchantNetCents: number;
}

/** Every part of every payment, per integration (or one), the largest gross first, and the totals. */
export async function platformEarnings(
  db: Kysely<Database>,
  filter: { integrationClientId?: string },
  range: ReportRange,
  page: { limit: number; offset: number },
) {
  let payments = db.selectFrom("payment_breakdowns as b").where("b.received_at", ">=", range.from).where("b.received_at", "<", range.until);
  if (filter.integrationClientId) payments = payments.where("b.integration_client_id", "=", filter.integrationClientId);
  const sums = [
    sql<number>`count(*)::int8`.as("paymentCount"),
    sql<number>`coalesce(sum(b.gross_cents), 0)::int8`.as("grossCents"),
    sql<number>`coalesce(sum(b.integration_commission_cents), 0)::int8`.as("integrationCommissionCents"),
    sql<number>`coalesce(sum(b.service_commission_cents), 0)::int8`.as("serviceCommissionCents"),
    sql<number>`coalesce(sum(b.merchant_net_cents), 0)::int8`.as("merchantNetCents"),
  ] as const;
  const [items, totals, count] = await Promise.all([
    payments
      .innerJoin("integration_clients as c", "c.id", "b.integration_client_id")
      .select(["b.integration_client_id as integrationClientId", "c.name as integrationName", ...sums])
      .groupBy(["b.integration_client_id", "c.name"])
      .orderBy(sql`sum(b.gross_cents)`, "desc")
      .orderBy("b.integration_client_id")
      .limit(page.limit)
      .offset(page.offset)
      .execute(),
    payments.select([...sums]).executeTakeFirstOrThrow(),
    payments.select(sql<number>`count(distinct b.integration_client_id)::int8`.as("integrations")).executeTakeFirstOrThrow(),
  ]);
  return { items: items as PlatformEarningsRow[], totals, total: count.integrations };
}
