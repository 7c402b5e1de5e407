// The integration's earnings: its commission on each payment of a date range, the totals, pages of
// payments, and the whole range as a CSV file.
import { useEffect, useRef, useState } from "preact/hooks";
import { adminApi } from "../api.ts";
import { DateRangeFields, rangeQuery, type DateRange } from "../components/date-range.tsx";
import { Empty, ErrorAlert, Loaded } from "../components/feedback.tsx";
import { Figures } from "../components/figures.tsx";
import { Pager } from "../components/pager.tsx";
import { useAction, useResource } from "../components/use-resource.ts";
import { formatDate, formatDateTime, formatMoney } from "../format.ts";
import { decimalText } from "../input-parsing.ts";
import { Link } from "../router.ts";
import { TableScroll } from "../components/table-scroll.tsx";
import { saveFile } from "../save-file.ts";

const PAGE_SIZE = 20;

export function Earnings() {
  const [draft, setDraft] = useState<DateRange>({ startDate: "", endDate: "" });
  const [range, setRange] = useState<DateRange>(draft);
  const [page, setPage] = useState(1);
  const report = useResource(() => adminApi.earnings.getEarnings({ ...rangeQuery(range), limit: PAGE_SIZE, offset: (page - 1) * PAGE_SIZE }), [range, page]);
  // The inputs hold the range shown: the API's default (this month up to today) fills them on the first
  // load, and a range it completed (an empty end) comes back whole; but never over what the person typed
  // since asking for that report (a slow first load would otherwise undo their typing).
  const typedSinceAsked = useRef(false);
  const shownStart = report.status === "ready" ? report.data.startDate : undefined;
  const shownEnd = report.status === "ready" ? report.data.endDate : undefined;
  useEffect(() => {
    if (shownStart !== undefined && shownEnd !== undefined && !typedSinceAsked.current) setDraft({ startDate: shownStart, endDate: shownEnd });
  }, [shownStart, shownEnd]);
  const download = useAction(async () => {
    const csv = await adminApi.earnings.exportEarningsCsv(rangeQuery(range));
    const shown = report.status === "ready" ? report.data : undefined;
    saveFile(`ganancias-${shown?.startDate ?? "desde"}-${shown?.endDate ?? "hasta"}.csv`, "text/csv;charset=utf-8", csv);
    return true;
  });
  return (
    <>
      <h1>Ganancias</h1>
      <form
        noValidate
        role="search"
        onSubmit={(event) => {
          event.preventDefault();
          setPage(1);
          typedSinceAsked.current = false;
          setRange(draft);
        }}
      >
        <DateRangeFields
          range={draft}
          onRange={(typed) => {
            typedSinceAsked.current = true;
            setDraft(typed);
          }}
          error={report.status === "failed" ? report.error : undefined}
        />
        <button type="submit">Ver</button>{" "}
        <button type="button" class="button-secondary" disabled={download.busy || report.status !== "ready"} onClick={() => void download.run()}>
          Descargar CSV
        </button>
      </form>
      <ErrorAlert error={download.error} />
      <Loaded resource={report}>
        {(result) => (
          <>
            <p data-testid="earnings-range">
              Del {formatDate(result.startDate)} al {formatDate(result.endDate)}
            </p>
            <Figures
              figures={[
                { label: "Pagos", value: String(result.totals.paymentCount), testId: "earnings-count" },
                { label: "Cobrado", value: formatMoney(result.totals.grossAmount), testId: "earnings-gross" },
                { label: "Tu comisión", value: formatMoney(result.totals.commissionAmount), testId: "earnings-commission" },
              ]}
            />
            {result.items.length === 0 ? (
              <Empty>No hubo pagos en esas fechas.</Empty>
            ) : (
              <>
                <TableScroll label="ganancias por pago">
                  <table>
                    <caption class="visually-hidden">Pagos del período</caption>
                    <thead>
                      <tr>
                        <th scope="col">Recibido</th>
                        <th scope="col">Cobro</th>
                        <th scope="col">Comercio</th>
                        <th scope="col" class="number">
                          Pagado
                        </th>
                        <th scope="col" class="number">
                          Comisión
                        </th>
                      </tr>
                    </thead>
                    <tbody>
                      {result.items.map((item) => (
                        <tr key={item.paymentId}>
                          <td>{formatDateTime(item.receivedAt)}</td>
                          <td>
                            <Link href={`/charges/${encodeURIComponent(item.paymentRequestId)}`}>{item.referenceId}</Link>
                          </td>
                          <td>{item.merchantName}</td>
                          <td class="number">{formatMoney(item.grossAmount)}</td>
                          <td class="number">
                            {formatMoney(item.commissionAmount)}
                            <span class="muted">
                              {" "}
                              ({decimalText(item.commissionPercentage)} %{item.commissionFixedAmount > 0 ? ` + ${formatMoney(item.commissionFixedAmount)}` : ""}
                              )
                            </span>
                          </td>
                        </tr>
                      ))}
                    </tbody>
                  </table>
                </TableScroll>
                <Pager page={page} pageSize={PAGE_SIZE} total={result.total} items={["pago", "pagos"]} onPage={setPage} />
              </>
            )}
          </>
        )}
      </Loaded>
    </>
  );
}
