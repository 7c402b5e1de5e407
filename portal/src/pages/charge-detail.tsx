// One charge: its state, payer, CVU and amounts by due date, the payments received, the notifications
// sent to the payer and the events sent to the integration. The events are found among the latest 100
// (the event list has no filter by charge).
import type { EventRecord, IntegrationPaymentRequestDetail } from "@cobro/sdk/admin";
import { adminApi } from "../api.ts";
import { EventList } from "../components/event-list.tsx";
import { Empty, Loaded } from "../components/feedback.tsx";
import { TableScroll } from "../components/table-scroll.tsx";
import { useResource } from "../components/use-resource.ts";
import { DAY, formatDate, formatDateTime, formatMoney, payerText } from "../format.ts";
import { Link } from "../router.ts";
import { CHARGE_STATE_LABELS, NOTIFICATION_CHANNEL_LABELS, NOTIFICATION_KIND_LABELS, NOTIFICATION_STATUS_LABELS } from "../status-labels.ts";

function eventsOf(events: EventRecord[], paymentRequestId: string): EventRecord[] {
  return events.filter((event) => event.payload.paymentRequestId === paymentRequestId);
}

/** A due date as created: a day (`2026-12-10`) or a day with a time (a short-lived charge). */
function formatDueDate(dueDate: string): string {
  return DAY.test(dueDate) ? formatDate(dueDate) : formatDateTime(dueDate);
}

export function ChargeDetail({ paymentRequestId }: { paymentRequestId: string }) {
  const charge = useResource(() => adminApi.paymentRequests.getIntegrationPaymentRequest({ paymentRequestId }), [paymentRequestId]);
  return (
    <>
      <p>
        <Link href="/charges">← Cobros</Link>
      </p>
      <Loaded resource={charge}>{(found) => <ChargeView charge={found} />}</Loaded>
    </>
  );
}

function ChargeView({ charge }: { charge: IntegrationPaymentRequestDetail }) {
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
        <dt>Pagador</dt>
        <dd data-testid="charge-payer">
          {charge.customerName}
          {charge.customerTaxDocument && ` · ${charge.customerTaxDocument}`}
          {charge.payerEmail && ` · ${charge.payerEmail}`}
        </dd>
        <dt>Importe</dt>
        <dd>{charge.amount === undefined ? "Sin importe (borrador)" : formatMoney(charge.amount)}</dd>
        <dt>Pagado</dt>
        <dd>{formatMoney(charge.paidAmount)}</dd>
        <dt>CVU</dt>
        <dd class="mono" data-testid="charge-cvu">
          {charge.cvu ?? "—"}
        </dd>
        <dt>Imputación</dt>
        <dd>{charge.conciliationType === "cuil" ? "Por CUIL del pagador" : "Por CVU del cobro"}</dd>
        <dt>Creado</dt>
        <dd>{formatDateTime(charge.createdAt)}</dd>
        <dt>Identificador</dt>
        <dd class="mono">{charge.paymentRequestId}</dd>
      </dl>
      <section aria-labelledby="due-dates-title">
        <h2 id="due-dates-title">Vencimientos</h2>
        {charge.dueAmounts.length === 0 ? (
          <p>{charge.dueDates.map(formatDueDate).join(" y ")}: sin importe hasta que se complete el borrador.</p>
        ) : (
          <ul class="list" data-testid="charge-due-dates">
            {charge.dueAmounts.map((due) => (
              <li key={due.dueDate}>
                <span>{formatDueDate(due.dueDate)}</span>
                <span class="number">{formatMoney(due.amount)}</span>
                {due.surchargeApplied !== undefined && <span class="muted">con recargo de {formatMoney(due.surchargeApplied)}</span>}
              </li>
            ))}
          </ul>
        )}
      </section>
      <section aria-labelledby="payments-title">
        <h2 id="payments-title">Pagos recibidos</h2>
        {charge.payments.length === 0 ? (
          <Empty>Todavía no llegó ningún pago.</Empty>
        ) : (
          <TableScroll label="pagos recibidos">
            <table data-testid="charge-payments">
              <thead>
                <tr>
                  <th scope="col">Fecha</th>
                  <th scope="col">Pagador</th>
                  <th scope="col">Transacción</th>
                  <th scope="col" class="number">
                    Importe
                  </th>
                </tr>
              </thead>
              <tbody>
                {charge.payments.map((payment) => (
                  <tr key={payment.transactionId}>
                    <td>{formatDateTime(payment.operatedAt)}</td>
                    <td>{payerText(payment.payerName, payment.payerCuil)}</td>
                    <td class="mono">{payment.transactionId}</td>
                    <td class="number">{formatMoney(payment.amount)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableScroll>
        )}
      </section>
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
        <Loaded resource={events}>{(items) => <EventList events={items} showCharge={false} empty="Este cobro no tiene eventos recientes." />}</Loaded>
      </section>
    </>
  );
}
