// One charge: its state and amounts, the notifications sent to the payer and the events sent to the
// integration. The Admin API has no "one charge" operation yet, so the charge is found in its list
// (newest first, up to 500) and its events among the latest 100.
import type { EventRecord, IntegrationPaymentRequest } from "@cobro/sdk/admin";
import { adminApi } from "../api.ts";
import { EventList } from "../components/event-list.tsx";
import { Empty, Loaded } from "../components/feedback.tsx";
import { useResource } from "../components/use-resource.ts";
import { formatDateTime, formatMoney } from "../format.ts";
import { Link } from "../router.ts";
import { CHARGE_STATE_LABELS, NOTIFICATION_CHANNEL_LABELS, NOTIFICATION_KIND_LABELS, NOTIFICATION_STATUS_LABELS } from "../status-labels.ts";

const SEARCH_PAGE = 100;
const SEARCH_PAGES = 5;

async function findCharge(paymentRequestId: string): Promise<IntegrationPaymentRequest | undefined> {
  for (let page = 0; page < SEARCH_PAGES; page++) {
    const result = await adminApi.paymentRequests.listIntegrationPaymentRequests({ limit: SEARCH_PAGE, offset: page * SEARCH_PAGE });
    const found = result.items.find((charge) => charge.paymentRequestId === paymentRequestId);
    if (found || result.offset + result.items.length >= result.total) return found;
  }
  return undefined;
}

function eventsOf(events: EventRecord[], paymentRequestId: string): EventRecord[] {
  return events.filter((event) => event.payload.paymentRequestId === paymentRequestId);
}

export function ChargeDetail({ paymentRequestId }: { paymentRequestId: string }) {
  const charge = useResource(() => findCharge(paymentRequestId), [paymentRequestId]);
  return (
    <>
      <p>
        <Link href="/charges">← Cobros</Link>
      </p>
      <Loaded resource={charge}>{(found) => (found ? <ChargeView charge={found} /> : <Empty>No encontramos ese cobro entre los más recientes.</Empty>)}</Loaded>
    </>
  );
}

function ChargeView({ charge }: { charge: IntegrationPaymentRequest }) {
  const referenceId = charge.integrationReferenceId;
  const notifications = useResource(
    async () => (referenceId === null ? { items: [] } : adminApi.notifications.listNotifications({ referenceId, limit: 100 })),
    [referenceId],
  );
  const events = useResource(
    async () => eventsOf((await adminApi.events.listEvents({ limit: 100 })).items, charge.paymentRequestId),
    [charge.paymentRequestId],
  );
  return (
    <>
      <h1>Cobro {referenceId ?? charge.paymentRequestId}</h1>
      <dl class="facts">
        <dt>Estado</dt>
        <dd>
          <span class={`badge badge-${charge.status}`} data-testid="charge-status">
            {CHARGE_STATE_LABELS[charge.status]}
          </span>
        </dd>
        <dt>Descripción</dt>
        <dd>{charge.description}</dd>
        <dt>Pagado</dt>
        <dd>{formatMoney(charge.paidAmount)}</dd>
        <dt>Pagador</dt>
        <dd>{charge.payerEmail ?? "—"}</dd>
        <dt>Creado</dt>
        <dd>{formatDateTime(charge.createdAt)}</dd>
        <dt>Identificador</dt>
        <dd class="mono">{charge.paymentRequestId}</dd>
      </dl>
      <section aria-labelledby="notifications-title">
        <h2 id="notifications-title">Avisos al pagador</h2>
        <Loaded resource={notifications}>
          {(page) =>
            page.items.length === 0 ? (
              <Empty>Este cobro no tiene avisos.</Empty>
            ) : (
              <ul class="list">
                {page.items.map((notification) => (
                  <li key={notification.notificationId}>
                    <span>
                      {NOTIFICATION_KIND_LABELS[notification.kind]} · {NOTIFICATION_CHANNEL_LABELS[notification.channel]}
                    </span>
                    <span class="muted">{formatDateTime(notification.sentAt ?? notification.scheduledFor)}</span>
                    <span class={`badge badge-${notification.status}`}>{NOTIFICATION_STATUS_LABELS[notification.status]}</span>
                  </li>
                ))}
              </ul>
            )
          }
        </Loaded>
      </section>
      <section aria-labelledby="charge-events-title">
        <h2 id="charge-events-title">Eventos</h2>
        <Loaded resource={events}>{(items) => <EventList events={items} empty="Este cobro no tiene eventos recientes." />}</Loaded>
      </section>
    </>
  );
}
