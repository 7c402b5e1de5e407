// The platform's earnings: for a date range, each integration's payments split into its commission,
// the platform's service commission and what the merchants keep, with the totals.
import { useState } from "preact/hooks";
import { adminApi } from "../../api.ts";
import { SelectField } from "../../components/field.tsx";
import { DateRangeFields, rangeQuery, type DateRange } from "../../components/date-range.tsx";
import { Empty, Loaded } from "../../components/feedback.tsx";
import { Figures } from "../../components/figures.tsx";
import { Pager } from "../../components/pager.tsx";
import { useResource } from "../../components/use-resource.ts";
import { formatDate, formatMoney } from "../../format.ts";
import { Link } from "../../router.ts";
import { TableScroll } from "../../components/table-scroll.tsx";

const PAGE_SIZE = 20;

export function PlatformEarnings() {
  const [draft, setDraft] = useState<DateRange & { integrationClientId: string }>({ startDate: "", endDate: "", integrationClientId: "" });
  const [applied, setApplied] = useState(draft);
  const [page, setPage] = useState(1);
  // The filter's choices: the integrations (the first hundred; the report itself has no such limit).
  const clients = useResource(() => adminApi.platformClients.listIntegrationClients({ limit: 100 }), []);
  const report = useResource(
    () =>
      adminApi.platformEarnings.getPlatformEarnings({
        ...rangeQuery(applied),
        ...(applied.integrationClientId ? { integrationClientId: applied.integrationClientId } : {}),
        limit: PAGE_SIZE,
        offset: (page - 1) * PAGE_SIZE,
      }),
    [applied, page],
  );
  const clientOptions = [
    { value: "", label: "Todas" },
    ...(clients.status === "ready" ? clients.data.items.map((client) => ({ value: client.integrationClientId, label: client.name })) : []),
  ];
  return (
    <>
      <h1>Ganancias de la plataforma</h1>
      <form
        noValidate
        role="search"
        onSubmit={(event) => {
          event.preventDefault();
          setPage(1);
          setApplied(draft);
        }}
      >
        <DateRangeFields range={draft} onRange={(range) => setDraft({ ...draft, ...range })} error={report.status === "failed" ? report.error : undefined} />
        <div class="filters">
          <SelectField
            label="Integración"
            name="integrationClientId"
            value={draft.integrationClientId}
            options={clientOptions}
            onValue={(integrationClientId) => setDraft({ ...draft, integrationClientId })}
          />
        </div>
        <button type="submit">Ver</button>
      </form>
      <Loaded resource={report}>
        {(result) => (
          <>
            <p data-testid="earnings-range">
              Del {formatDate(result.startDate)} al {formatDate(result.endDate)}
            </p>
            <Figures
              figures={[
                { label: "Cobrado", value: formatMoney(result.totals.grossAmount), testId: "platform-gross" },
                {
                  label: "Comisión de las integraciones",
                  value: formatMoney(result.totals.integrationCommissionAmount),
                  testId: "platform-integration-commission",
                },
                { label: "Comisión del servicio", value: formatMoney(result.totals.serviceCommissionAmount), testId: "platform-service-commission" },
                { label: "Neto de los comercios", value: formatMoney(result.totals.merchantNetAmount), testId: "platform-merchant-net" },
              ]}
            />
            {result.items.length === 0 ? (
              <Empty>No hubo pagos en esas fechas.</Empty>
            ) : (
              <>
                <TableScroll label="ganancias de la plataforma">
                  <table>
                    <caption class="visually-hidden">Ganancias por integración</caption>
                    <thead>
                      <tr>
                        <th scope="col">Integración</th>
                        <th scope="col" class="number">
                          Pagos
                        </th>
                        <th scope="col" class="number">
                          Cobrado
                        </th>
                        <th scope="col" class="number">
                          Integración
                        </th>
                        <th scope="col" class="number">
                          Servicio
                        </th>
                        <th scope="col" class="number">
                          Comercios
                        </th>
                      </tr>
                    </thead>
                    <tbody>
                      {result.items.map((item) => (
                        <tr key={item.integrationClientId}>
                          <td>
                            <Link href={`/clients/${encodeURIComponent(item.integrationClientId)}`}>{item.integrationName}</Link>
                          </td>
                          <td class="number">{item.paymentCount}</td>
                          <td class="number">{formatMoney(item.grossAmount)}</td>
                          <td class="number">{formatMoney(item.integrationCommissionAmount)}</td>
                          <td class="number">{formatMoney(item.serviceCommissionAmount)}</td>
                          <td class="number">{formatMoney(item.merchantNetAmount)}</td>
                        </tr>
                      ))}
                    </tbody>
                  </table>
                </TableScroll>
                <Pager page={page} pageSize={PAGE_SIZE} total={result.total} items={["integración", "integraciones"]} onPage={setPage} />
              </>
            )}
          </>
        )}
      </Loaded>
    </>
  );
}
