// The integration's day at a glance: what was collected today, the open charges by state, the latest events.
// "Today" is the integration's: in the Sandbox, its clock's (which can be weeks ahead of the real one).
import { adminApi } from "../api.ts";
import { integrationToday } from "../integration-today.ts";
import { CHARGE_STATE_LABELS, OPEN_CHARGE_STATES } from "../status-labels.ts";
import { EventList } from "../components/event-list.tsx";
import { Loaded } from "../components/feedback.tsx";
import { useResource } from "../components/use-resource.ts";
import { formatMoney, plural } from "../format.ts";
import { Link } from "../router.ts";

export function Dashboard() {
  const collected = useResource(async () => {
    const today = await integrationToday();
    return adminApi.earnings.getEarnings({ startDate: today, endDate: today });
  }, []);
  const openCharges = useResource(
    () =>
      Promise.all(
        OPEN_CHARGE_STATES.map(async (status) => ({
          status,
          total: (await adminApi.paymentRequests.listIntegrationPaymentRequests({ status, limit: 1 })).total,
        })),
      ),
    [],
  );
  const events = useResource(() => adminApi.events.listEvents({ limit: 5 }), []);
  return (
    <>
      <h1>Inicio</h1>
      <div class="cards">
        <section class="card" aria-labelledby="collected-title">
          <h2 id="collected-title">Cobrado hoy</h2>
          <Loaded resource={collected}>
            {(report) => (
              <>
                <p class="figure" data-testid="collected-today">
                  {formatMoney(report.totals.grossAmount)}
                </p>
                <p class="muted">
                  {plural(report.totals.paymentCount, "pago", "pagos")} · comisión {formatMoney(report.totals.commissionAmount)}
                </p>
              </>
            )}
          </Loaded>
        </section>
        <section class="card" aria-labelledby="open-title">
          <h2 id="open-title">Cobros abiertos</h2>
          <Loaded resource={openCharges}>
            {(counts) => (
              <ul class="counts">
                {counts.map(({ status, total }) => (
                  <li key={status}>
                    <Link href={`/charges?status=${status}`}>{CHARGE_STATE_LABELS[status]}</Link>
                    <span class="count">{total}</span>
                  </li>
                ))}
              </ul>
            )}
          </Loaded>
        </section>
      </div>
      <section aria-labelledby="events-title">
        <h2 id="events-title">Últimos eventos</h2>
        <Loaded resource={events}>{(page) => <EventList events={page.items} empty="Todavía no hay eventos." />}</Loaded>
      </section>
    </>
  );
}
