// The integration's charges: a list with a state filter and pages, and one charge with its
// notifications and events. The filter and the page are in the URL, so a reload or a shared link keeps them.
import { adminApi } from "../api.ts";
import { SelectField } from "../components/field.tsx";
import { Empty, Loaded } from "../components/feedback.tsx";
import { Pager } from "../components/pager.tsx";
import { useResource } from "../components/use-resource.ts";
import { formatDateTime, formatMoney } from "../format.ts";
import { Link, navigate } from "../router.ts";
import { CHARGE_STATE_LABELS, isChargeState } from "../status-labels.ts";
import { TableScroll } from "../components/table-scroll.tsx";

const PAGE_SIZE = 20;

const STATE_OPTIONS = [{ value: "", label: "Todos" }, ...Object.entries(CHARGE_STATE_LABELS).map(([value, label]) => ({ value, label }))];

export function ChargeList({ query }: { query: URLSearchParams }) {
  const requested = query.get("status") ?? "";
  const status = isChargeState(requested) ? requested : undefined;
  const page = Math.max(1, Number.parseInt(query.get("page") ?? "1", 10) || 1);
  const charges = useResource(
    () => adminApi.paymentRequests.listIntegrationPaymentRequests({ status, limit: PAGE_SIZE, offset: (page - 1) * PAGE_SIZE }),
    [status, page],
  );
  const go = (next: { status?: string; page?: number }) => {
    const params = new URLSearchParams();
    const nextStatus = next.status ?? status ?? "";
    if (nextStatus) params.set("status", nextStatus);
    if ((next.page ?? 1) > 1) params.set("page", String(next.page));
    const search = params.toString();
    navigate(`/charges${search ? `?${search}` : ""}`);
  };
  return (
    <>
      <h1>Cobros</h1>
      <form class="filters" role="search" onSubmit={(event) => event.preventDefault()}>
        <SelectField label="Estado" name="status" value={status ?? ""} options={STATE_OPTIONS} onValue={(value) => go({ status: value, page: 1 })} />
      </form>
      <Loaded resource={charges}>
        {(result) => {
          return result.items.length === 0 ? (
            <Empty>{status ? `No hay cobros en estado «${CHARGE_STATE_LABELS[status]}».` : "Todavía no hay cobros."}</Empty>
          ) : (
            <>
              <TableScroll label="cobros">
                <table>
                  <caption class="visually-hidden">Cobros de la integración</caption>
                  <thead>
                    <tr>
                      <th scope="col">Referencia</th>
                      <th scope="col">Descripción</th>
                      <th scope="col">Estado</th>
                      <th scope="col" class="number">
                        Pagado
                      </th>
                      <th scope="col">Creado</th>
                    </tr>
                  </thead>
                  <tbody>
                    {result.items.map((charge) => (
                      <tr key={charge.paymentRequestId}>
                        <td>
                          <Link href={`/charges/${encodeURIComponent(charge.paymentRequestId)}`}>
                            {charge.integrationReferenceId ?? charge.paymentRequestId.slice(0, 8)}
                          </Link>
                        </td>
                        <td>{charge.description}</td>
                        <td>
                          <span class={`badge badge-${charge.status}`}>{CHARGE_STATE_LABELS[charge.status]}</span>
                        </td>
                        <td class="number">{formatMoney(charge.paidAmount)}</td>
                        <td>{formatDateTime(charge.createdAt)}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </TableScroll>
              <Pager page={page} pageSize={PAGE_SIZE} total={result.total} items={["cobro", "cobros"]} onPage={(next) => go({ page: next })} />
            </>
          );
        }}
      </Loaded>
    </>
  );
}
