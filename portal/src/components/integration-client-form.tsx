// The integration client's form, one for its three pages: the platform creates a client (its OAuth lists
// and first admin included), the platform edits one (its logout URLs included), and the integration's admin
// edits its own. Each page says which fields it shows and what the submit does; the labels, the hints (worded
// from the contract's rules, spec/admin/clients.tsp and models.tsp) and how the texts become the API's body
// live here once.
import { useState } from "preact/hooks";
import type { IntegrationClientCreate, IntegrationClientDetail, IntegrationClientType, PlatformIntegrationClientUpdate } from "@cobro/sdk/admin";
import { INTEGRATION_TYPE_LABELS } from "../status-labels.ts";
import { Field, SelectField } from "./field.tsx";
import { ErrorAlert, Notice } from "./feedback.tsx";
import { errorsOutside, LinesField, lineProblems, linesOf } from "./lines-field.tsx";
import type { Action } from "./use-resource.ts";
import { sandboxRedirectUri } from "../environment.ts";

const TEXT_FIELDS = ["name", "companyName", "contactEmail", "description", "logoUrl", "type", "firstAdminEmail", "firstAdminName"] as const;
const LIST_FIELDS = ["scopes", "redirectUrls", "logoutUrls"] as const;
type TextField = (typeof TEXT_FIELDS)[number];
type ListField = (typeof LIST_FIELDS)[number];
export type ClientField = TextField | ListField;

/** What the form read, as the API takes it: each text trimmed, each list one item per line. */
export type ClientFormData = Record<TextField, string> & Record<ListField, string[]>;

const TYPE_OPTIONS = Object.entries(INTEGRATION_TYPE_LABELS).map(([value, label]) => ({ value, label }));

/** The create's body: an optional field left empty is left out rather than sent empty (no scopes: the API's default ones). */
export function clientCreateOf(data: ClientFormData): IntegrationClientCreate {
  const text = (field: TextField) => (data[field] ? { [field]: data[field] } : {});
  const list = (field: ListField) => (data[field].length > 0 ? { [field]: new Set(data[field]) } : {});
  return {
    name: data.name,
    companyName: data.companyName,
    contactEmail: data.contactEmail,
    ...text("description"),
    ...text("logoUrl"),
    ...list("scopes"),
    ...list("redirectUrls"),
    ...list("logoutUrls"),
    ...text("firstAdminEmail"),
    ...text("firstAdminName"),
  };
}

/** An edit's body: the fields the page shows, each sent (a partial update changes only those). */
export function clientUpdateOf(data: ClientFormData, fields: readonly ClientField[]): Omit<PlatformIntegrationClientUpdate, "serviceCommissionPercentage"> {
  const shown = (field: ClientField) => fields.includes(field);
  return {
    name: data.name,
    companyName: data.companyName,
    contactEmail: data.contactEmail,
    ...(shown("description") ? { description: data.description } : {}), // empty removes it
    ...(shown("type") ? { type: data.type as IntegrationClientType } : {}),
    ...(shown("logoutUrls") ? { logoutUrls: new Set(data.logoutUrls) } : {}), // the whole list: none removes them all
    // A logo URL cannot be emptied (an upload replaces it): an empty field leaves it as it is.
    ...(shown("logoUrl") && data.logoUrl ? { logoUrl: data.logoUrl } : {}),
  };
}

export interface IntegrationClientFormProps<Result> {
  /** `create`: the fields start empty and the optional ones may stay so; `edit`: they start with the client's values. */
  mode: "create" | "edit";
  /** The fields the page shows (name, companyName and contactEmail always); the form keeps its own order. */
  fields: readonly ClientField[];
  /** The client as it stands (edit); `logoutUrls` only the platform reads. */
  client?: IntegrationClientDetail & { logoutUrls?: string[] };
  /** The page's request with what the form read. */
  action: Action<[ClientFormData], Result>;
  submitLabel: string;
  /** After the request succeeded (an edit also says "Datos guardados."). */
  onDone: (result: Result) => void;
}

export function IntegrationClientForm<Result>({ mode, fields, client, action, submitLabel, onDone }: IntegrationClientFormProps<Result>) {
  const [values, setValues] = useState<Record<ClientField, string>>({
    name: client?.name ?? "",
    companyName: client?.companyName ?? "",
    contactEmail: client?.contactEmail ?? "",
    description: client?.description ?? "",
    logoUrl: client?.logoUrl ?? "",
    type: client?.type ?? "",
    scopes: "",
    redirectUrls: "",
    logoutUrls: client?.logoutUrls?.join("\n") ?? "",
    firstAdminEmail: "",
    firstAdminName: "",
  });
  const [saved, setSaved] = useState(false);
  const shown = (field: ClientField) => field === "name" || field === "companyName" || field === "contactEmail" || fields.includes(field);
  const lists = { scopes: linesOf(values.scopes), redirectUrls: linesOf(values.redirectUrls), logoutUrls: linesOf(values.logoutUrls) };
  const set = (field: ClientField) => (value: string) => {
    setValues({ ...values, [field]: value });
    setSaved(false);
  };
  const errors = action.error?.fieldErrors ?? {};
  const listProblems = (field: ListField) => lineProblems(action.error, field, lists[field]);
  const creating = mode === "create";
  return (
    <form
      noValidate
      onSubmit={async (event) => {
        event.preventDefault();
        setSaved(false);
        const texts = Object.fromEntries(TEXT_FIELDS.map((field) => [field, values[field].trim()])) as Record<TextField, string>;
        const result = await action.run({ ...texts, ...lists });
        if (result !== undefined) {
          setSaved(!creating);
          onDone(result);
        }
      }}
    >
      <ErrorAlert
        error={action.error}
        extra={
          action.error
            ? errorsOutside(
                action.error,
                TEXT_FIELDS.filter((field) => shown(field)),
                LIST_FIELDS.filter((field) => shown(field)),
              )
            : []
        }
      />
      <Field label="Nombre" required name="name" autocomplete="off" value={values.name} onValue={set("name")} error={errors.name} />
      <Field
        label="Razón social"
        required
        name="companyName"
        autocomplete="organization"
        value={values.companyName}
        onValue={set("companyName")}
        error={errors.companyName}
      />
      <Field
        label="Email de contacto"
        required
        type="email"
        name="contactEmail"
        autocomplete="email"
        value={values.contactEmail}
        onValue={set("contactEmail")}
        error={errors.contactEmail}
      />
      {shown("description") && (
        <Field
          label="Descripción"
          name="description"
          autocomplete="off"
          hint={creating ? "Opcional, hasta 500 caracteres." : "Hasta 500 caracteres. Vacía: sin descripción."}
          value={values.description}
          onValue={set("description")}
          error={errors.description}
        />
      )}
      {shown("logoUrl") && (
        <Field
          label="URL del logo"
          type="url"
          name="logoUrl"
          autocomplete="off"
          hint={
            creating
              ? "Opcional: una imagen HTTPS ya publicada (o la integración sube la suya después)."
              : "Una imagen HTTPS ya publicada (o la integración sube la suya). Vacía: el logo no cambia."
          }
          value={values.logoUrl}
          onValue={set("logoUrl")}
          error={errors.logoUrl}
        />
      )}
      {shown("type") && (
        <SelectField label="Tipo de integración" required name="type" value={values.type} options={TYPE_OPTIONS} onValue={set("type")} error={errors.type} />
      )}
      {shown("scopes") && (
        <LinesField
          label="Scopes de OAuth"
          name="scopes"
          value={values.scopes}
          onValue={set("scopes")}
          hint="Uno por línea. Vacío: openid, email y profile."
          problems={listProblems("scopes")}
        />
      )}
      {shown("redirectUrls") && (
        <LinesField
          label="URIs de redirección"
          name="redirectUrls"
          value={values.redirectUrls}
          onValue={set("redirectUrls")}
          hint={`Una por línea (redirect_uri): las direcciones a las que vuelve la autorización de un comercio (https; en el Sandbox también http://localhost${sandboxRedirectUri ? `, como la URI de prueba del Sandbox, ${sandboxRedirectUri}` : ""}).`}
          problems={listProblems("redirectUrls")}
        />
      )}
      {shown("logoutUrls") && (
        <LinesField
          label="URLs de cierre de sesión"
          name="logoutUrls"
          value={values.logoutUrls}
          onValue={set("logoutUrls")}
          hint="Una por línea: adónde puede volver el navegador después de cerrar la sesión (https; en el Sandbox también http://localhost). Sin ninguna, no vuelve a ninguna."
          problems={listProblems("logoutUrls")}
        />
      )}
      {shown("firstAdminEmail") && (
        <Field
          label="Email del primer administrador"
          type="email"
          name="firstAdminEmail"
          autocomplete="off"
          hint="Opcional: recibe un email de bienvenida con una contraseña temporal."
          value={values.firstAdminEmail}
          onValue={set("firstAdminEmail")}
          error={errors.firstAdminEmail}
        />
      )}
      {shown("firstAdminName") && (
        <Field
          label="Nombre del primer administrador"
          name="firstAdminName"
          autocomplete="off"
          value={values.firstAdminName}
          onValue={set("firstAdminName")}
          error={errors.firstAdminName}
        />
      )}
      <button type="submit" disabled={action.busy}>
        {submitLabel}
      </button>
      {saved && <Notice>Datos guardados.</Notice>}
    </form>
  );
}
