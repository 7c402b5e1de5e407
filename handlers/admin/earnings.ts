// The money reports: the integration's commissions (JSON and CSV) and the platform's view of every part.
import type { components } from "../../generated/types/admin.ts";
import { integrationEarnings, integrationEarningsInOrder, platformEarnings, reportRange, type EarningsRow } from "../../domain/earnings/earnings-report.ts";
import { fromCents } from "../../domain/money.ts";
import { integrationNow } from "../../domain/clock.ts";
import { requireIntegrationAdmin, requirePlatformAdmin } from "./caller.ts";
import { csvText } from "./csv.ts";
import { pageOf } from "./page-query.ts";
import type { Handler } from "./handler.ts";

function earningsItem(row: EarningsRow): components["schemas"]["EarningsItem"] {
  return {
    paymentId: row.paymentId,
    paymentRequestId: row.paymentRequestId,
    referenceId: row.referenceId,
    merchantUserId: row.merchantUserId,
    merchantName: row.merchantName,
    receivedAt: row.receivedAt.toISOString(),
    grossAmount: fromCents(row.grossCents),
    commissionPercentage: Number(row.commissionPercentage),
    commissionFixedAmount: fromCents(row.commissionFixedCents),
    commissionAmount: fromCents(row.commissionCents),
  };
}

export const getEarnings: Handler<"getEarnings"> = async ({ caller, query, services }) => {
  const admin = requireIntegrationAdmin(caller);
  const range = reportRange(query, integrationNow(services.clock, admin.clockOffsetMs));
  const page = pageOf(query);
  const { items, totals } = await integrationEarnings(services.db, admin.integrationClientId, range, page);
  return {
    status: 200,
    body: {
      startDate: range.startDate,
      endDate: range.endDate,
      totals: { paymentCount: totals.paymentCount, grossAmount: fromCents(totals.grossCents), commissionAmount: fromCents(totals.commissionCents) },
      items: items.map(earningsItem),
      total: totals.paymentCount,
      ...page,
    },
  };
};

const CSV_COLUMNS = [
  "paymentId",
  "receivedAt",
  "paymentRequestId",
  "referenceId",
  "merchantUserId",
  "merchantName",
  "grossAmount",
  "commissionPercentage",
  "commissionFixedAmount",
  "commissionAmount",
] as const;

function csvLine(row: EarningsRow): string {
  return [
    row.paymentId,
    row.receivedAt.toISOString(),
    row.paymentRequestId,
    csvText(row.referenceId),
    row.merchantUserId,
    csvText(row.merchantName),
    (row.grossCents / 100).toFixed(2),
    Number(row.commissionPercentage).toFixed(2),
    (row.commissionFixedCents / 100).toFixed(2),
    (row.commissionCents / 100).toFixed(2),
  ].join(",");
}

export const exportEarningsCsv: Handler<"exportEarningsCsv"> = async ({ caller, query, services }) => {
  const admin = requireIntegrationAdmin(caller);
  const range = reportRange(query, integrationNow(services.clock, admin.clockOffsetMs));
  const lines = [CSV_COLUMNS.join(",")];
  for await (const row of integrationEarningsInOrder(services.db, admin.integrationClientId, range)) lines.push(csvLine(row));
  return {
    status: 200,
    headers: { "Content-Disposition": `attachment; filename="cobro-comisiones-${range.startDate}-${range.endDate}.csv"`, "Cache-Control": "no-store" },
    body: `${lines.join("\r\n")}\r\n`,
  };
};

export const getPlatformEarnings: Handler<"getPlatformEarnings"> = async ({ caller, query, services }) => {
  requirePlatformAdmin(caller);
  const range = reportRange(query, services.clock.now());
  const page = pageOf(query);
  const { items, totals, total } = await platformEarnings(services.db, { integrationClientId: query.integrationClientId }, range, page);
  const amounts = (row: Omit<typeof totals, "paymentCount"> & { paymentCount: number }) => ({
    paymentCount: row.paymentCount,
    grossAmount: fromCents(row.grossCents),
    integrationCommissionAmount: fromCents(row.integrationCommissionCents),
    serviceCommissionAmount: fromCents(row.serviceCommissionCents),
    merchantNetAmount: fromCents(row.merchantNetCents),
  });
  return {
    status: 200,
    body: {
      startDate: range.startDate,
      endDate: range.endDate,
      totals: amounts(totals),
      items: items.map((row) => ({ integrationClientId: row.integrationClientId, integrationName: row.integrationName, ...amounts(row) })),
      total,
      ...page,
    },
  };
};
