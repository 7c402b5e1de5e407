// The catalog of subscribable events: the wire names `enabledEvents` accepts, with the portal's Spanish
// label and description. The catalog is the authority: any other name is refused (422).
import type { EventsTable } from "../../db/tables/events.table.ts";
import { DomainError } from "../errors.ts";

export type EventName = EventsTable["type"];

export interface CatalogItem {
  event: EventName;
  label: string;
  description: string;
}

export const EVENT_CATALOG: readonly CatalogItem[] = [
  {
    event: "payment_request.payment_received",
    label: "Pago recibido",
    description: "Se acreditó una transferencia que coincide con un cobro (pago total o parcial).",
  },
  {
    event: "payment_request.expired",
    label: "Cobro vencido",
    description: "Venció un cobro cuya fecha de vencimiento tiene hora.",
  },
  {
    event: "payment.unmatched",
    label: "Pago sin imputar",
    description: "Llegó una transferencia que no se pudo asociar a ningún cobro.",
  },
  {
    event: "payment.returned",
    label: "Pago devuelto",
    description: "Se devolvió un pago sin imputar a la cuenta de origen.",
  },
  {
    event: "payment.return_failed",
    label: "Devolución fallida",
    description: "El banco no pudo devolver un pago sin imputar; el dinero vuelve a estar sin imputar.",
  },
];

export function isCatalogEvent(name: string): name is EventName {
  return EVENT_CATALOG.some((item) => item.event === name);
}

/** 422 `UnknownWebhookEventError` when a name is outside the catalog; `what` says what takes the names. */
export function refuseUnknownEvents(names: readonly string[], what: string): void {
  const unknown = names.filter((name) => !isCatalogEvent(name));
  if (unknown.length === 0) return;
  throw new DomainError(
    "UnknownWebhookEventError",
    `Unknown event name: ${unknown[0]}. The catalog (GET /my-integration/webhook-events) lists the names ${what} accepts.`,
    {
      cause: `not in the catalog: ${unknown.join(", ")}`,
    },
  );
}
