// The platform's review queue of go-live requests: approve, or reject with a reason the integration reads.
import { useState } from "preact/hooks";
import type { GoLiveRequest } from "@cobro/sdk/admin";
import { adminApi } from "../../api.ts";
import { Field } from "../../components/field.tsx";
import { Empty, ErrorAlert, Loaded, Notice } from "../../components/feedback.tsx";
import { useAction, useResource } from "../../components/use-resource.ts";
import { formatDateTime } from "../../format.ts";
import { GO_LIVE_STATUS_LABELS } from "../../status-labels.ts";
import { Provisioning, Reasons } from "../go-live.tsx";

export function GoLiveReview() {
  const queue = useResource(() => adminApi.platformGoLiveReview.listGoLiveRequests({ status: "in_review", limit: 100 }), []);
  return (
    <>
      <h1>Salidas a producción</h1>
      <Loaded resource={queue}>
        {(page) =>
          page.items.length === 0 ? (
            <Empty>No hay solicitudes para revisar.</Empty>
          ) : (
            page.items.map((request) => <ReviewItem key={request.id} request={request} />)
          )
        }
      </Loaded>
    </>
  );
}

/** A decided request stays in view with its outcome until the page is loaded again (reloading the queue at once would take the confirmation away). */
function ReviewItem({ request }: { request: GoLiveRequest }) {
  const [reason, setReason] = useState("");
  const [decided, setDecided] = useState<GoLiveRequest | undefined>(undefined);
  const approve = useAction(() => adminApi.platformGoLiveReview.approveGoLiveRequest({ id: request.id }));
  const reject = useAction(() => adminApi.platformGoLiveReview.rejectGoLiveRequest({ id: request.id, goLiveRejection: { reason: reason.trim() } }));
  const done = (result: GoLiveRequest | undefined) => {
    if (result) setDecided(result);
  };
  const headingId = `go-live-${request.id}`;
  return (
    <section class="panel" aria-labelledby={headingId}>
      <h2 id={headingId}>{request.integrationName}</h2>
      <p class="muted">
        Pedida por {request.requestedByEmail} el {formatDateTime(request.requestedAt)}
      </p>
      <Reasons reasons={request.reasons} />
      {decided ? (
        <Notice>
          Solicitud {GO_LIVE_STATUS_LABELS[decided.status].toLowerCase()}.
          <Provisioning provisioning={decided.provisioning} />
        </Notice>
      ) : (
        <>
          <ErrorAlert error={approve.error} />
          <button type="button" disabled={approve.busy || reject.busy} onClick={async () => done(await approve.run())}>
            Aprobar
          </button>
          <form
            noValidate
            class="reject-form"
            onSubmit={async (event) => {
              event.preventDefault();
              done(await reject.run());
            }}
          >
            <ErrorAlert error={reject.error} />
            <Field
              label="Motivo del rechazo"
              required
              name="reason"
              autocomplete="off"
              value={reason}
              onValue={setReason}
              error={reject.error?.fieldErrors.reason}
            />
            <button type="submit" class="button-danger" disabled={approve.busy || reject.busy}>
              Rechazar
            </button>
          </form>
        </>
      )}
    </section>
  );
}
