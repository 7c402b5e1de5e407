// One integration client for the platform: its profile (edited), its suspension, its admins, and the
// service commission, whose saving is applied to every merchant link in batches ("continuar" sends the
// same percentage again while links remain).
import { useState } from "preact/hooks";
import type { CommissionBackfill, PlatformIntegrationClientDetail } from "@cobro/sdk/admin";
import { adminApi } from "../../api.ts";
import { unplacedFieldErrors } from "../../api-error.ts";
import { Field } from "../../components/field.tsx";
import { ErrorAlert, Loaded, Notice } from "../../components/feedback.tsx";
import { useAction, useResource } from "../../components/use-resource.ts";
import { formatDate } from "../../format.ts";
import { decimalText, parsePercentage } from "../../input-parsing.ts";
import { Link } from "../../router.ts";
import { INTEGRATION_TYPE_LABELS } from "../../status-labels.ts";
import { ClientAdmins } from "./client-admins.tsx";
import { ClientProfile, ClientSuspension } from "./client-profile.tsx";

export function ClientDetail({ integrationClientId }: { integrationClientId: string }) {
  const client = useResource(() => adminApi.platformClients.getIntegrationClient({ id: integrationClientId }), [integrationClientId]);
  return (
    <>
      <p>
        <Link href="/clients">← Integraciones</Link>
      </p>
      <Loaded resource={client}>
        {(found) => (
          <>
            <h1>{found.name}</h1>
            <dl class="facts">
              <dt>Empresa</dt>
              <dd>{found.companyName}</dd>
              <dt>Contacto</dt>
              <dd>{found.contactEmail}</dd>
              <dt>
                ID de cliente <span class="muted mono">(clientId)</span>
              </dt>
              <dd class="mono">{found.providerClientId}</dd>
              <dt>Tipo</dt>
              <dd>{INTEGRATION_TYPE_LABELS[found.type]}</dd>
              <dt>Alta</dt>
              <dd>{formatDate(found.createDate)}</dd>
              <dt>Estado</dt>
              <dd>{found.suspended ? `Suspendida${found.suspensionReason ? `: ${found.suspensionReason}` : ""}` : "Activa"}</dd>
            </dl>
            <ClientProfile client={found} onSaved={client.reload} />
            <ClientSuspension client={found} onChanged={client.reload} />
            <ServiceCommission client={found} />
            <ClientAdmins client={found} />
          </>
        )}
      </Loaded>
    </>
  );
}

function ServiceCommission({ client }: { client: PlatformIntegrationClientDetail }) {
  const [percentage, setPercentage] = useState(decimalText(client.serviceCommissionPercentage));
  const [problem, setProblem] = useState<string | undefined>(undefined);
  const [backfill, setBackfill] = useState<CommissionBackfill | undefined>(undefined);
  const save = useAction((serviceCommissionPercentage: number | null) =>
    adminApi.platformClients.updateIntegrationClient({ id: client.integrationClientId, platformIntegrationClientUpdate: { serviceCommissionPercentage } }),
  );
  const submit = async () => {
    const value = parsePercentage(percentage);
    setProblem(value === undefined ? "Ingresá un porcentaje entre 0 y 100, por ejemplo 1,5." : undefined);
    if (value === undefined) return;
    const updated = await save.run(value);
    if (updated) setBackfill(updated.commissionBackfill);
  };
  return (
    <section class="panel" aria-labelledby="commission-title">
      <h2 id="commission-title">Comisión del servicio</h2>
      <p>El porcentaje que Cobro retiene de cada pago de esta integración. Vacío: sin comisión. La integración no lo ve.</p>
      <form
        noValidate
        onSubmit={(event) => {
          event.preventDefault();
          void submit();
        }}
      >
        <ErrorAlert error={save.error} extra={save.error ? unplacedFieldErrors(save.error, ["serviceCommissionPercentage"]) : []} />
        <Field
          label="Comisión (%)"
          name="serviceCommissionPercentage"
          inputMode="decimal"
          autocomplete="off"
          value={percentage}
          onValue={setPercentage}
          error={problem ?? save.error?.fieldErrors.serviceCommissionPercentage}
        />
        <button type="submit" disabled={save.busy}>
          Guardar la comisión
        </button>
      </form>
      {backfill && (
        <Notice>
          <p data-testid="commission-backfill">
            Vínculos con comercios: {backfill.applied} actualizados, {backfill.skipped} ya estaban al día, {backfill.failed} con error, {backfill.pending}{" "}
            pendientes (de {backfill.total}).
          </p>
          {backfill.pending > 0 && (
            <button type="button" disabled={save.busy} onClick={() => void submit()}>
              Continuar
            </button>
          )}
        </Notice>
      )}
    </section>
  );
}
