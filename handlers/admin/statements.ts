// The daily statement on the Admin API: the integration's (/my-integration/statements/{date}) and the
// platform's across integrations (/integration-admin/statements/{date}); JSON, or CSV when asked for by `Accept`.
import { integrationNow } from "../../domain/clock.ts";
import { dailyStatement, type DailyStatementView } from "../../domain/reconciliation/daily-statement.ts";
import { requireIntegrationAdmin, requirePlatformAdmin } from "./caller.ts";
import { csvText } from "./csv.ts";
import type { Handler } from "./handler.ts";

/** Whether the request's `Accept` prefers `text/csv` to JSON (by its q-values, then its order); anything else is answered in JSON. */
function prefersCsv(headers: Record<string, string | string[] | undefined>): boolean {
  const accept = headers.accept;
  const ranges = (Array.isArray(accept) ? accept.join(",") : (accept ?? ""))
    .split(",")
    .map((range, order) => {
      const [type = "", ...parameters] = range.split(";").map((part) => part.trim().toLowerCase());
      const q = parameters.find((parameter) => parameter.startsWith("q="));
      return { type, q: q === undefined ? 1 : Number(q.slice(2)) || 0, order };
    })
    .filter((range) => range.q > 0 && ["text/csv", "application/json", "text/*", "application/*", "*/*"].includes(range.type))
    .sort((a, b) => b.q - a.q || a.order - b.order);
  return ranges[0]?.type === "text/csv" || ranges[0]?.type === "text/*";
}

/** The statement's CSV columns, in order, as the contract's description names them. */
const CSV_COLUMNS = [
  "recordedAt",
  "receivedAt",
  "transactionId",
  "cvu",
  "payerCuil",
  "payerName",
  "integrationClientId",
  "merchantUserId",
  "paymentRequestId",
  "referenceId",
  "unmatchedPaymentId",
  "unmatchedReason",
  "unmatchedState",
  "grossAmount",
  "matchedAmount",
  "assignedAmount",
  "returnedAmount",
  "returningAmount",
  "unresolvedAmount",
  "integrationCommissionAmount",
  "serviceCommissionAmount",
  "merchantNetAmount",
  "lastResolutionAt",
  "resolvedAfterDay",
] as const;

/** The lines as CSV: one header line, amounts in pesos with two decimals, CRLF line ends. */
function statementCsv(statement: DailyStatementView): string {
  const lines = [CSV_COLUMNS.join(",")];
  for (const line of statement.lines) {
    lines.push(
      CSV_COLUMNS.map((column) => {
        const value = line[column];
        if (value === undefined || value === null) return "";
        if (typeof value === "number") return value.toFixed(2);
        return csvText(String(value));
      }).join(","),
    );
  }
  return `${lines.join("\r\n")}\r\n`;
}

function answer(
  statement: DailyStatementView,
  headers: Record<string, string | string[] | undefined>,
): { status: 200; body: DailyStatementView | string; headers: Record<string, string> } {
  if (!prefersCsv(headers)) return { status: 200, body: statement, headers: { Vary: "Accept" } };
  return {
    status: 200,
    body: statementCsv(statement),
    headers: { "Content-Disposition": `attachment; filename="cobro-resumen-${statement.date}.csv"`, "Cache-Control": "no-store", Vary: "Accept" },
  };
}

export const getDailyStatement: Handler<"getDailyStatement"> = async ({ caller, params, query, headers, services }) => {
  const admin = requireIntegrationAdmin(caller);
  const statement = await dailyStatement(
    services.db,
    { kind: "integration", integrationClientId: admin.integrationClientId, merchantAccountId: query.merchantUserId },
    params.date,
    integrationNow(services.clock, admin.clockOffsetMs),
  );
  return answer(statement, headers);
};

export const getPlatformDailyStatement: Handler<"getPlatformDailyStatement"> = async ({ caller, params, query, headers, services }) => {
  requirePlatformAdmin(caller);
  const statement = await dailyStatement(
    services.db,
    { kind: "platform", integrationClientId: query.integrationClientId, withoutIntegration: query.withoutIntegration, merchantAccountId: query.merchantUserId },
    params.date,
    services.clock.now(),
  );
  return answer(statement, headers);
};
