// Going live: the integration's latest request with the reasons of its review, and its creation in Production.
import type { GoLiveProvisioning, GoLiveReason } from "@cobro/sdk/admin";
import { adminApi } from "../api.ts";
import { Empty, ErrorAlert, Loaded } from "../components/feedback.tsx";
import { useAction, useResource } from "../components/use-resource.ts";
import { formatDateTime } from "../format.ts";
import { GO_LIVE_STATUS_LABELS, PROVISIONING_STATUS_LABELS } from "../status-labels.ts";

export function GoLive() {
  // The latest request is the first of the list, which is empty while the integration has never asked
  // (asking for the latest one would be a 404, an error in the browser's console for "none yet").
  const latest = useResource(async () => (await adminApi.goLive.listMyGoLiveRequests({ limit: 1 })).items[0] ?? null, []);
  const request = useAction(() => adminApi.goLive.requestGoLive());
  return (
    <>
      <h1>Salida a producción</h1>
      <p>
        Cuando tu integración esté lista, pedí el acceso a Producción. Una revisión automática lo aprueba al instante o lo pasa al equipo de Cobro con los
        motivos.
      </p>
      <Loaded resource={latest}>
        {(current) => (
          <>
            {current === null ? (
              <Empty>Todavía no pediste la salida a producción.</Empty>
            ) : (
              <section class="panel" aria-labelledby="go-live-status-title">
                <h2 id="go-live-status-title">
                  Estado: <span data-testid="go-live-status">{GO_LIVE_STATUS_LABELS[current.status]}</span>
                </h2>
                <p class="muted">Pedida el {formatDateTime(current.requestedAt)}.</p>
                {current.status === "rejected" && current.rejectionReason && <p>Motivo del rechazo: {current.rejectionReason}</p>}
                <Reasons reasons={current.reasons} />
                <Provisioning provisioning={current.provisioning} />
              </section>
            )}
            {current?.status !== "approved" && (
              <>
                <ErrorAlert error={request.error} />
                <button type="button" disabled={request.busy} onClick={async () => (await request.run()) && latest.reload()}>
                  {current === null ? "Pedir la salida a producción" : "Volver a pedir la revisión"}
                </button>
              </>
            )}
          </>
        )}
      </Loaded>
    </>
  );
}

export function Reasons({ reasons }: { reasons: GoLiveReason[] }) {
  if (reasons.length === 0) return null;
  return (
    <>
      <h3>Qué falta</h3>
      <ul class="reasons">
        {reasons.map((reason) => (
          <li key={reason.code} data-code={reason.code}>
            {reason.message}
          </li>
        ))}
      </ul>
    </>
  );
}

export function Provisioning({ provisioning }: { provisioning: GoLiveProvisioning }) {
  return (
    <>
      <h3>Creación en Producción</h3>
      <dl class="facts">
        <dt>Estado</dt>
        <dd>{PROVISIONING_STATUS_LABELS[provisioning.status]}</dd>
        {provisioning.productionClientId && (
          <>
            <dt>ID de cliente de Producción</dt>
            <dd class="mono">{provisioning.productionClientId}</dd>
          </>
        )}
        {provisioning.provisionedAt && (
          <>
            <dt>Lista desde</dt>
            <dd>{formatDateTime(provisioning.provisionedAt)}</dd>
          </>
        )}
        {provisioning.lastError && (
          <>
            <dt>Último error</dt>
            <dd>{provisioning.lastError}</dd>
          </>
        )}
      </dl>
      {provisioning.instructions && <p>{provisioning.instructions}</p>}
    </>
  );
}
