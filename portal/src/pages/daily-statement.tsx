// The daily statement ("resumen diario"): every transfer the integration's merchant accounts received on an
// Argentina day, with what became of its money (paid to its charge on arrival, unmatched and why, assigned by
// hand, returned), totals that add up to the cent, and the API's CSV of it. The day and the merchant account
// are in the URL, so a reload or a shared link keeps them; no day is the integration's today.
import type { DailyStatementLine } from "@cobro/sdk/admin";
import { adminApi } from "../api.ts";
import { Field, SelectField } from "../components/field.tsx";
import { Empty, ErrorAlert, Loaded } from "../components/feedback.tsx";
import { Figures } from "../components/figures.tsx";
import { TableScroll } from "../components/table-scroll.tsx";
import { useAction, useResource } from "../components/use-resource.ts";
import { DAY, formatDate, formatDateTime, formatMoney, formatTime, payerText, plural } from "../format.ts";
import { integrationToday } from "../integration-today.ts";
import { merchantName, merchantOptions, useMerchants } from "../merchant-names.ts";
import { Link, navigate } from "../router.ts";
import { attachmentName, saveFile } from "../save-file.ts";
import { UNMATCHED_PAYMENT_REASON_LABELS, UNMATCHED_PAYMENT_STATE_LABELS } from "../status-labels.ts";

/** What became of a transfer's money, one sentence per part. */
function Outcome({ line }: { line: DailyStatementLine }) {
  return (
    <ul class="outcome">
      {line.paymentRequestId && (
        <li>
          Aplicado al cobro <Link href={`/charges/${encodeURIComponent(line.paymentRequestId)}`}>{line.referenceId}</Link>
          {line.unmatchedPaymentId ? `: ${formatMoney(line.matchedAmount)}` : ""}
        </li>
      )}
      {line.unmatchedPaymentId && (
        <li>
          <Link href={`/unmatched/${encodeURIComponent(line.unmatchedPaymentId)}`}>
            {line.unmatchedReason ? UNMATCHED_PAYMENT_REASON_LABELS[line.unmatchedReason] : "Sin imputar"}
          </Link>{" "}
          {line.unmatchedState && <span class={`badge badge-${line.unmatchedState}`}>{UNMATCHED_PAYMENT_STATE_LABELS[line.unmatchedState]}</span>}
        </li>
      )}
      {line.assignments.map((assignment) => (
        <li key={`${assignment.paymentRequestId}-${assignment.assignedAt}`}>
          Imputado al cobro <Link href={`/charges/${encodeURIComponent(assignment.paymentRequestId)}`}>{assignment.referenceId}</Link>:{" "}
          {formatMoney(assignment.amount)}
        </li>
      ))}
      {line.returnedAmount > 0 && <li>Devuelto: {formatMoney(line.returnedAmount)}</li>}
      {line.returningAmount > 0 && <li>En devolución: {formatMoney(line.returningAmount)}</li>}
      {line.unmatchedPaymentId && line.unresolvedAmount > 0 && <li>Sin resolver: {formatMoney(line.unresolvedAmount)}</li>}
      {line.resolvedAfterDay && (
        <li data-testid="resolved-after-day">
          <span class="badge">Resuelto después del día</span>
          {line.lastResolutionAt ? ` (${formatDateTime(line.lastResolutionAt)})` : ""}
        </li>
      )}
    </ul>
  );
}

export function DailyStatementPage({ query }: { query: URLSearchParams }) {
  const chosenDay = DAY.test(query.get("date") ?? "") ? query.get("date")! : "";
  const merchantUserId = query.get("merchantUserId") ?? "";
  const today = useResource(integrationToday, []);
  const day = chosenDay || (today.status === "ready" ? today.data : "");
  const merchants = useMerchants();
  const request = () => ({ date: day, ...(merchantUserId ? { merchantUserId } : {}) });
  const statement = useResource(async () => (day ? adminApi.statements.getDailyStatement(request()) : undefined), [day, merchantUserId]);
  const go = (next: { date?: string; merchantUserId?: string }) => {
    const params = new URLSearchParams();
    const date = next.date ?? chosenDay;
    const merchant = next.merchantUserId ?? merchantUserId;
    if (date) params.set("date", date);
    if (merchant) params.set("merchantUserId", merchant);
    const search = params.toString();
    navigate(`/statements${search ? `?${search}` : ""}`);
  };
  // The CSV is the API's (Accept: text/csv), saved under the name its Content-Disposition gives.
  const download = useAction(async () => {
    const answer = await adminApi.statements.getDailyStatementRaw(request(), async ({ init }) => ({
      headers: { ...(init.headers as Record<string, string>), Accept: "text/csv" },
    }));
    saveFile(attachmentName(answer.raw.headers.get("content-disposition")) ?? `resumen-diario-${day}.csv`, "text/csv;charset=utf-8", await answer.raw.text());
    return true;
  });
  const error = statement.status === "failed" ? statement.error : undefined;
  return (
    <>
      <h1>Resumen diario</h1>
      <p>
        Cada transferencia que recibieron tus comercios en un día y qué pasó con su dinero: si pagó su cobro, si quedó sin imputar y por qué, si se imputó a
        mano o se devolvió. Lo recibido es la suma de todo lo demás, al centavo.
      </p>
      <form class="filters" role="search" aria-label="Día y comercio del resumen" onSubmit={(event) => event.preventDefault()}>
        <Field
          label="Día"
          type="date"
          name="date"
          value={day}
          max={today.status === "ready" ? today.data : undefined}
          onValue={(date) => go({ date })}
          error={error?.fieldErrors.date}
        />
        <SelectField
          label="Comercio"
          name="merchantUserId"
          value={merchantUserId}
          options={merchantOptions(merchants, "Todos")}
          onValue={(merchant) => go({ merchantUserId: merchant })}
        />
      </form>
      {today.status === "failed" && !chosenDay && <ErrorAlert error={today.error} />}
      <p>
        <button type="button" class="button-secondary" disabled={download.busy || statement.status !== "ready"} onClick={() => void download.run()}>
          Descargar CSV
        </button>
      </p>
      <ErrorAlert error={download.error} />
      <Loaded resource={statement}>
        {(result) =>
          result === undefined ? null : (
            <>
              <p data-testid="statement-day">
                {formatDate(result.date)} · {plural(result.totals.transferCount, "transferencia", "transferencias")}
                {result.dayComplete ? "" : " · el día no terminó: el resumen crece con cada transferencia"}
                {result.totals.resolvedAfterDayCount > 0
                  ? ` · ${plural(result.totals.resolvedAfterDayCount, "transferencia resuelta", "transferencias resueltas")} después del día`
                  : ""}
              </p>
              <Figures
                figures={[
                  { label: "Recibido", value: formatMoney(result.totals.receivedAmount), testId: "statement-received" },
                  { label: "Aplicado al llegar", value: formatMoney(result.totals.matchedAmount), testId: "statement-matched" },
                  { label: "Imputado a mano", value: formatMoney(result.totals.assignedAmount), testId: "statement-assigned" },
                  { label: "Devuelto", value: formatMoney(result.totals.returnedAmount), testId: "statement-returned" },
                  { label: "En devolución", value: formatMoney(result.totals.returningAmount), testId: "statement-returning" },
                  { label: "Sin resolver", value: formatMoney(result.totals.unresolvedAmount), testId: "statement-unresolved" },
                ]}
              />
              {result.lines.length === 0 ? (
                <Empty>No se recibieron transferencias ese día.</Empty>
              ) : (
                <TableScroll label="transferencias del día">
                  <table>
                    <caption class="visually-hidden">Transferencias recibidas el {formatDate(result.date)}</caption>
                    <thead>
                      <tr>
                        <th scope="col">Hora</th>
                        <th scope="col" class="number">
                          Importe
                        </th>
                        <th scope="col">Qué pasó</th>
                        <th scope="col">Pagador</th>
                        <th scope="col">Comercio</th>
                      </tr>
                    </thead>
                    <tbody>
                      {result.lines.map((line) => (
                        <tr
                          key={line.transactionId}
                          data-testid="statement-line"
                          data-transaction-id={line.transactionId}
                          data-resolved-after-day={String(line.resolvedAfterDay)}
                        >
                          <td>
                            {formatTime(line.recordedAt)}
                            <span class="visually-hidden"> · transferencia {line.transactionId}</span>
                          </td>
                          <td class="number">{formatMoney(line.grossAmount)}</td>
                          <td>
                            <Outcome line={line} />
                          </td>
                          <td>{payerText(line.payerName, line.payerCuil)}</td>
                          <td>{merchants.status === "ready" ? merchantName(merchants.data, line.merchantUserId) : ""}</td>
                        </tr>
                      ))}
                    </tbody>
                  </table>
                </TableScroll>
              )}
            </>
          )
        }
      </Loaded>
    </>
  );
}
