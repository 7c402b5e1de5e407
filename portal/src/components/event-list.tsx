// Events sent (or to be sent) to the integration's webhook: what happened, to which charge, when, and how
// the delivery went.
import type { EventRecord } from "@cobro/sdk/admin";
import { formatDateTime } from "../format.ts";
import { EVENT_STATUS_LABELS, eventLabel } from "../status-labels.ts";
import { EventCharge } from "./event-charge.tsx";
import { Empty } from "./feedback.tsx";

export function EventList({ events, empty, showCharge = true }: { events: EventRecord[]; empty: string; showCharge?: boolean }) {
  if (events.length === 0) return <Empty>{empty}</Empty>;
  return (
    <ul class="list">
      {events.map((event) => (
        <li key={event.eventId}>
          <span>
            {eventLabel(event.event)} <span class="mono muted">{event.event}</span>
          </span>
          {showCharge && <EventCharge payload={event.payload} />}
          <span class="muted">{formatDateTime(event.createdAt)}</span>
          <span class={`badge badge-${event.deliveryStatus}`}>{EVENT_STATUS_LABELS[event.deliveryStatus]}</span>
        </li>
      ))}
    </ul>
  );
}
