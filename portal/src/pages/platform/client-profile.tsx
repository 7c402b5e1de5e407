// An integration client's profile as the platform edits it (its logout URLs included), and its suspension:
// while suspended the Integration API refuses new charges and payer changes, and the integration's admins
// read the reason.
import { useState } from "preact/hooks";
import type { IntegrationClientType, PlatformIntegrationClientDetail } from "@cobro/sdk/admin";
import { adminApi } from "../../api.ts";
import { unplacedFieldErrors } from "../../api-error.ts";
import { Field, SelectField } from "../../components/field.tsx";
import { errorsOutside, LinesField, lineProblems, linesOf } from "../../components/lines-field.tsx";
import { ErrorAlert, Notice } from "../../components/feedback.tsx";
import { useAction } from "../../components/use-resource.ts";
import { formatDateTime } from "../../format.ts";
import { INTEGRATION_TYPE_LABELS } from "../../status-labels.ts";

const PROFILE_FIELDS = ["name", "companyName", "contactEmail", "description", "logoUrl", "type"] as const;
const PROFILE_LISTS = ["logoutUrls"] as const;
type ProfileField = (typeof PROFILE_FIELDS)[number] | (typeof PROFILE_LISTS)[number];
const TYPE_OPTIONS = Object.entries(INTEGRATION_TYPE_LABELS).map(([value, label]) => ({ value, label }));

export function ClientProfile({ client, onSaved }: { client: PlatformIntegrationClientDetail; onSaved: () => void }) {
  const [values, setValues] = useState<Record<ProfileField, string>>({
    name: client.name,
    companyName: client.companyName,
    contactEmail: client.contactEmail,
    description: client.description ?? "",
    logoUrl: client.logoUrl ?? "",
    type: client.type,
    logoutUrls: client.logoutUrls.join("\n"),
  });
  const [saved, setSaved] = useState(false);
  const logoutUrls = linesOf(values.logoutUrls);
  const save = useAction(() =>
    adminApi.platformClients.updateIntegrationClient({
      id: client.integrationClientId,
      platformIntegrationClientUpdate: {
        name: values.name.trim(),
        companyName: values.companyName.trim(),
        contactEmail: values.contactEmail.trim(),
        description: values.description.trim(), // empty removes it
        type: values.type as IntegrationClientType,
        logoutUrls: new Set(logoutUrls), // the whole list: none removes them all
        // A logo URL cannot be emptied here (an upload replaces it): an empty field leaves it as it is.
        ...(values.logoUrl.trim() ? { logoUrl: values.logoUrl.trim() } : {}),
      },
    }),
  );
  const set = (field: ProfileField) => (value: string) => setValues({ ...values, [field]: value });
  return (
    <details class="panel">
      <summary>Editar los datos</summary>
      <form
        noValidate
        onSubmit={async (event) => {
          event.preventDefault();
          setSaved(false);
          if (await save.run()) {
            setSaved(true);
            onSaved();
          }
        }}
      >
        <ErrorAlert error={save.error} extra={save.error ? errorsOutside(save.error, PROFILE_FIELDS, PROFILE_LISTS) : []} />
        <Field label="Nombre" required name="name" autocomplete="off" value={values.name} onValue={set("name")} error={save.error?.fieldErrors.name} />
        <Field
          label="Razón social"
          required
          name="companyName"
          autocomplete="organization"
          value={values.companyName}
          onValue={set("companyName")}
          error={save.error?.fieldErrors.companyName}
        />
        <Field
          label="Email de contacto"
          required
          type="email"
          name="contactEmail"
          autocomplete="email"
          value={values.contactEmail}
          onValue={set("contactEmail")}
          error={save.error?.fieldErrors.contactEmail}
        />
        <Field
          label="Descripción"
          name="description"
          autocomplete="off"
          hint="Vacía: sin descripción."
          value={values.description}
          onValue={set("description")}
          error={save.error?.fieldErrors.description}
        />
        <Field
          label="URL del logo"
          type="url"
          name="logoUrl"
          autocomplete="off"
          hint="Una imagen HTTPS ya publicada."
          value={values.logoUrl}
          onValue={set("logoUrl")}
          error={save.error?.fieldErrors.logoUrl}
        />
        <SelectField label="Tipo" required name="type" value={values.type} options={TYPE_OPTIONS} onValue={set("type")} error={save.error?.fieldErrors.type} />
        <LinesField
          label="URLs de cierre de sesión"
          name="logoutUrls"
          value={values.logoutUrls}
          onValue={set("logoutUrls")}
          hint="Una por línea: adónde puede volver el navegador después de cerrar la sesión. Sin ninguna, no vuelve a ninguna."
          problems={lineProblems(save.error, "logoutUrls", logoutUrls)}
        />
        <button type="submit" disabled={save.busy}>
          Guardar los datos
        </button>
        {saved && <Notice>Datos guardados.</Notice>}
      </form>
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
