// The integration's daily cap of chat messages, and its requests to raise it (one pending at a time;
// a platform admin approves or rejects it).
import { useState } from "preact/hooks";
import { adminApi } from "../api.ts";
import { unplacedFieldErrors } from "../api-error.ts";
import { Field } from "../components/field.tsx";
import { Empty, ErrorAlert, Loaded, Notice } from "../components/feedback.tsx";
import { useAction, useResource } from "../components/use-resource.ts";
import { formatCount, formatDateTime, plural } from "../format.ts";
import { parseWholeNumber } from "../input-parsing.ts";
import { MESSAGE_CAP_STATUS_LABELS } from "../status-labels.ts";

const CAP_FIELDS = ["requestedPerDay", "reason"] as const;

export function MessageCap() {
  const requests = useResource(() => adminApi.myIntegration.listMyMessageCapRequests({ limit: 100 }), []);
  const [requestedPerDay, setRequestedPerDay] = useState("");
  const [reason, setReason] = useState("");
  const [problem, setProblem] = useState<string | undefined>(undefined);
  const [sent, setSent] = useState(false);
  const create = useAction((perDay: number) =>
    adminApi.myIntegration.createMessageCapRequest({ messageCapRequestCreate: { requestedPerDay: perDay, reason: reason.trim() } }),
  );
  return (
    <>
      <h1>Mensajes de chat</h1>
      <Loaded resource={requests}>
        {(page) => (
          <>
            <dl class="facts">
              <dt>Tope diario actual</dt>
              <dd data-testid="message-cap">{plural(page.currentPerDay, "mensaje", "mensajes")}</dd>
            </dl>
            <section class="panel" aria-labelledby="cap-request-title">
              <h2 id="cap-request-title">Pedir un tope mayor</h2>
              {sent && <Notice>Enviamos tu pedido: te avisamos por email cuando se resuelva.</Notice>}
              <form
                noValidate
                onSubmit={async (event) => {
                  event.preventDefault();
                  setSent(false);
                  const perDay = parseWholeNumber(requestedPerDay);
                  setProblem(perDay === undefined ? "Ingresá una cantidad de mensajes por día, por ejemplo 500." : undefined);
                  if (perDay === undefined) return;
                  if (await create.run(perDay)) {
                    setSent(true);
                    setRequestedPerDay("");
                    setReason("");
                    requests.reload();
                  }
                }}
              >
                <ErrorAlert error={create.error} extra={create.error ? unplacedFieldErrors(create.error, CAP_FIELDS) : []} />
                <Field
                  label="Mensajes por día"
                  required
                  name="requestedPerDay"
                  inputMode="numeric"
                  autocomplete="off"
                  hint={`Más que el tope actual (${formatCount(page.currentPerDay)}), hasta 100.000.`}
                  value={requestedPerDay}
                  onValue={setRequestedPerDay}
                  error={problem ?? create.error?.fieldErrors.requestedPerDay}
                />
                <Field
                  label="Motivo"
                  required
                  name="reason"
                  autocomplete="off"
                  maxLength={500}
                  value={reason}
                  onValue={setReason}
                  error={create.error?.fieldErrors.reason}
                />
                <button type="submit" disabled={create.busy}>
                  Enviar el pedido
                </button>
              </form>
            </section>
            <h2>Pedidos</h2>
            {page.items.length === 0 ? (
              <Empty>Todavía no pediste un tope mayor.</Empty>
            ) : (
              <ul class="list">
                {page.items.map((request) => (
                  <li key={request.id}>
                    <span>
                      {formatCount(request.requestedPerDay)} por día <span class="muted">· {formatDateTime(request.createdAt)}</span>
                    </span>
                    <span class="muted">{request.reason}</span>
                    <span class={`badge badge-${request.status === "approved" ? "delivered" : request.status === "rejected" ? "failed" : "pending"}`}>
                      {MESSAGE_CAP_STATUS_LABELS[request.status]}
                      {request.approvedPerDay !== null && request.approvedPerDay !== request.requestedPerDay ? `: ${formatCount(request.approvedPerDay)}` : ""}
                    </span>
                    {request.rejectionReason && <span>Motivo del rechazo: {request.rejectionReason}</span>}
                  </li>
                ))}
              </ul>
            )}
          </>
        )}
      </Loaded>
    </>
  );
}
