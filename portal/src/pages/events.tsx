// The integration's events of the last 30 days with how their delivery went, filtered by name and by
// delivered or not, in pages; each one can be sent again. Filters and page are in the URL.
import { useState } from "preact/hooks";
import type { DeliveryAttemptError, EventNotSentReason, EventRecord } from "@cobro/sdk/admin";
import { adminApi } from "../api.ts";
import { SelectField } from "../components/field.tsx";
import { Empty, ErrorAlert, Loaded, Notice } from "../components/feedback.tsx";
import { Pager } from "../components/pager.tsx";
import { useAction, useResource } from "../components/use-resource.ts";
import { formatDateTime, plural } from "../format.ts";
import { navigate } from "../router.ts";
import { EventCharge } from "../components/event-charge.tsx";
import { EVENT_STATUS_LABELS, eventLabel } from "../status-labels.ts";

const PAGE_SIZE = 20;

const DELIVERED_OPTIONS = [
  { value: "", label: "Todos" },
  { value: "true", label: "Entregados" },
  { value: "false", label: "No entregados" },
];

const NOT_SENT_LABELS: Record<EventNotSentReason, string> = {
  not_subscribed: "no estabas suscripto a este evento",
  no_target: "no había una URL de webhook a la cual enviarlo",
  merchant_unlinked: "el comercio se había desvinculado",
};

const ATTEMPT_ERROR_LABELS: Record<DeliveryAttemptError, string> = {
  non_2xx: "no respondió 2xx",
  timeout: "no respondió a tiempo",
  connection_error: "no se pudo conectar",
  redirect: "respondió con una redirección",
  blocked_address: "la dirección no está permitida",
};

export function EventLog({ query }: { query: URLSearchParams }) {
  const event = query.get("event") ?? "";
  const deliveredFilter = query.get("delivered") ?? "";
  const delivered = deliveredFilter === "true" ? true : deliveredFilter === "false" ? false : undefined;
  const page = Math.max(1, Number.parseInt(query.get("page") ?? "1", 10) || 1);
  const catalog = useResource(() => adminApi.webhooks.listWebhookEvents(), []);
  const events = useResource(
    () => adminApi.events.listEvents({ event: event || undefined, delivered, limit: PAGE_SIZE, offset: (page - 1) * PAGE_SIZE }),
    [event, delivered, page],
  );
  const go = (next: { event?: string; delivered?: string; page?: number }) => {
    const params = new URLSearchParams();
    const nextEvent = next.event ?? event;
    const nextDelivered = next.delivered ?? deliveredFilter;
    if (nextEvent) params.set("event", nextEvent);
    if (nextDelivered) params.set("delivered", nextDelivered);
    if ((next.page ?? 1) > 1) params.set("page", String(next.page));
    const search = params.toString();
    navigate(`/events${search ? `?${search}` : ""}`);
  };
  const eventOptions = [
    { value: "", label: "Todos" },
    ...(catalog.status === "ready" ? catalog.data.map((item) => ({ value: item.event, label: eventLabel(item.event) })) : []),
  ];
  if (event && !eventOptions.some((option) => option.value === event)) eventOptions.push({ value: event, label: eventLabel(event) });
  return (
    <>
      <h1>Eventos</h1>
      <form class="filters" role="search" onSubmit={(submitted) => submitted.preventDefault()}>
        <SelectField label="Evento" name="event" value={event} options={eventOptions} onValue={(value) => go({ event: value, page: 1 })} />
        <SelectField
          label="Entrega"
          name="delivered"
          value={deliveredFilter}
          options={DELIVERED_OPTIONS}
          onValue={(value) => go({ delivered: value, page: 1 })}
        />
      </form>
      <Loaded resource={events}>
        {(result) =>
          result.items.length === 0 ? (
            <Empty>{event || deliveredFilter ? "No hay eventos con esos filtros." : "Todavía no hay eventos en los últimos 30 días."}</Empty>
          ) : (
            <>
              <ul class="list event-log">
                {result.items.map((record) => (
                  <EventItem key={record.eventId} record={record} />
                ))}
              </ul>
              <Pager page={page} pageSize={PAGE_SIZE} total={result.total} items={["evento", "eventos"]} onPage={(next) => go({ page: next })} />
            </>
          )
        }
      </Loaded>
    </>
  );
}

function EventItem({ record }: { record: EventRecord }) {
  const [current, setCurrent] = useState(record);
  const [resent, setResent] = useState(false);
  const resend = useAction(() => adminApi.events.resendEvent({ eventId: record.eventId }));
  const lastAttempt = current.attempts.at(-1);
  return (
    <li aria-label={`${eventLabel(current.event)} ${formatDateTime(current.createdAt)}`}>
      <div class="event-head">
        <span>
          {eventLabel(current.event)} <span class="mono muted">{current.event}</span>
        </span>
        <EventCharge payload={current.payload} />
        <span class="muted">{formatDateTime(current.createdAt)}</span>
        <span class={`badge badge-${current.deliveryStatus}`} data-testid="event-status">
          {EVENT_STATUS_LABELS[current.deliveryStatus]}
        </span>
      </div>
      <p class="event-detail muted">
        {current.notSentReason && `No se envió: ${NOT_SENT_LABELS[current.notSentReason]}. `}
        {current.attempts.length === 0 ? "Sin intentos de entrega." : `${plural(current.attempts.length, "intento", "intentos")}.`}
        {lastAttempt &&
          ` Último: ${formatDateTime(lastAttempt.attemptedAt)}${lastAttempt.responseStatus !== undefined ? `, HTTP ${lastAttempt.responseStatus}` : ""}${lastAttempt.error ? `, ${ATTEMPT_ERROR_LABELS[lastAttempt.error]}` : ""}.`}
        {current.nextAttemptAt && ` Próximo intento: ${formatDateTime(current.nextAttemptAt)}.`}
      </p>
      {current.targetUrl && <p class="event-detail mono">{current.targetUrl}</p>}
      <ErrorAlert error={resend.error} />
      {resent && <Notice>Reenvío en camino: el intento quedó en cola.</Notice>}
      <button
        type="button"
        class="button-secondary"
        disabled={resend.busy}
        onClick={async () => {
          setResent(false);
          const queued = await resend.run();
          if (queued) {
            setCurrent(queued);
            setResent(true);
          }
        }}
      >
        Reenviar
      </button>
    </li>
  );
}
