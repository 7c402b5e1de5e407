// An integration client's profile as the platform edits it (its logout URLs included), and its suspension:
// while suspended the Integration API refuses new charges and payer changes, and the integration's admins
// read the reason.
import { useState } from "preact/hooks";
import type { PlatformIntegrationClientDetail } from "@cobro/sdk/admin";
import { adminApi } from "../../api.ts";
import { unplacedFieldErrors } from "../../api-error.ts";
import { Field } from "../../components/field.tsx";
import { ErrorAlert } from "../../components/feedback.tsx";
import { type ClientField, type ClientFormData, clientUpdateOf, IntegrationClientForm } from "../../components/integration-client-form.tsx";
import { useAction } from "../../components/use-resource.ts";
import { formatDateTime } from "../../format.ts";

/** What the platform edits: the integrator's fields and the logout URLs (the commission has its own section). */
const PROFILE_FIELDS = ["description", "logoUrl", "type", "logoutUrls"] as const satisfies readonly ClientField[];

export function ClientProfile({ client, onSaved }: { client: PlatformIntegrationClientDetail; onSaved: () => void }) {
  const save = useAction((data: ClientFormData) =>
    adminApi.platformClients.updateIntegrationClient({
      id: client.integrationClientId,
      platformIntegrationClientUpdate: clientUpdateOf(data, PROFILE_FIELDS),
    }),
  );
  return (
    <details class="panel">
      <summary>Editar los datos</summary>
      <IntegrationClientForm mode="edit" fields={PROFILE_FIELDS} client={client} action={save} submitLabel="Guardar los datos" onDone={onSaved} />
    </details>
  );
}

export function ClientSuspension({ client, onChanged }: { client: PlatformIntegrationClientDetail; onChanged: () => void }) {
  const [reason, setReason] = useState("");
  const suspend = useAction(() =>
    adminApi.platformClients.suspendIntegrationClient({ id: client.integrationClientId, integrationClientSuspension: { reason: reason.trim() } }),
  );
  const reinstate = useAction(() => adminApi.platformClients.reinstateIntegrationClient({ id: client.integrationClientId }));
  return (
    <section class="panel" aria-labelledby="suspension-title">
      <h2 id="suspension-title">Suspensión</h2>
      {client.suspended ? (
        <>
          <p data-testid="suspension">
            Suspendida desde el {client.suspendedAt ? formatDateTime(client.suspendedAt) : "—"}: {client.suspensionReason}
          </p>
          <ErrorAlert error={reinstate.error} />
          <button
            type="button"
            disabled={reinstate.busy}
            onClick={async () => {
              if (await reinstate.run()) onChanged();
            }}
          >
            Reactivar
          </button>
        </>
      ) : (
        <form
          noValidate
          onSubmit={async (event) => {
            event.preventDefault();
            if (await suspend.run()) {
              setReason("");
              onChanged();
            }
          }}
        >
          <p>
            Mientras está suspendida, la integración no puede crear cobros ni cambiar pagadores; los cobros abiertos se siguen pudiendo leer, cancelar y pagar.
          </p>
          <ErrorAlert error={suspend.error} extra={suspend.error ? unplacedFieldErrors(suspend.error, ["reason"]) : []} />
          <Field
            label="Motivo de la suspensión"
            required
            name="reason"
            autocomplete="off"
            maxLength={500}
            hint="Lo leen los administradores de la integración."
            value={reason}
            onValue={setReason}
            error={suspend.error?.fieldErrors.reason}
          />
          <button type="submit" class="button-danger" disabled={suspend.busy}>
            Suspender
          </button>
        </form>
      )}
    </section>
  );
}
