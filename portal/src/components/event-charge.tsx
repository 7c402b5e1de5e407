// The charge an event is about, as a link to its page: its reference, or its id when it has none. An
// event of no charge (a transfer that matched none) names the CVU it was sent to.
import type { EventRecord } from "@cobro/sdk/admin";
import { Link } from "../router.ts";

export function EventCharge({ payload }: { payload: EventRecord["payload"] }) {
  const paymentRequestId = typeof payload.paymentRequestId === "string" ? payload.paymentRequestId : undefined;
  const referenceId = typeof payload.referenceId === "string" ? payload.referenceId : undefined;
  if (paymentRequestId) {
    return (
      <Link href={`/charges/${encodeURIComponent(paymentRequestId)}`} data-testid="event-charge">
        Cobro {referenceId ?? paymentRequestId}
      </Link>
    );
  }
  const cvu = typeof payload.cvu === "string" ? payload.cvu : undefined;
  return <span data-testid="event-charge">{cvu ? `Sin cobro · CVU ${cvu}` : "Sin cobro"}</span>;
}
