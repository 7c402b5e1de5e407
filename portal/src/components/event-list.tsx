// Events sent (or to be sent) to the integration's webhook: name, when, and how the delivery went.
import type { EventRecord } from "@cobro/sdk/admin";
import { formatDateTime } from "../format.ts";
import { EVENT_STATUS_LABELS } from "../status-labels.ts";
import { Empty } from "./feedback.tsx";

export function EventList({ events, empty }: { events: EventRecord[]; empty: string }) {
  if (events.length === 0) return <Empty>{empty}</Empty>;
  return (
    <ul class="list">
      {events.map((event) => (
        <li key={event.eventId}>
          <span class="mono">{event.event}</span>
          <span class="muted">{formatDateTime(event.createdAt)}</span>
          <span class={`badge badge-${event.deliveryStatus}`}>{EVENT_STATUS_LABELS[event.deliveryStatus]}</span>
        </li>
      ))}
    </ul>
  );
}
