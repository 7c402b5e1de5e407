// The tenants (branches) of a multitenant integration: each with its key, name and webhook URL, and the
// validation token sent with the events to that URL (write-only: the page only says whether it is set).
import { useState } from "preact/hooks";
import type { TenantListItem } from "@cobro/sdk/admin";
import { adminApi } from "../api.ts";
import { placedUnderField, unplacedFieldErrors, type ApiError } from "../api-error.ts";
import { Field } from "../components/field.tsx";
import { Confirmation, Empty, ErrorAlert, Loaded, Notice } from "../components/feedback.tsx";
import { useAction, useResource } from "../components/use-resource.ts";

const TENANT_FIELDS = ["key", "name", "webhookUrl", "webhookValidationToken"] as const;
type TenantField = (typeof TENANT_FIELDS)[number];
type TenantValues = Record<TenantField, string>;

export function Tenants() {
  const tenants = useResource(() => adminApi.tenants.listTenants(), []);
  return (
    <>
      <h1>Sucursales</h1>
      <p>Cada sucursal recibe en su propia URL los eventos de los comercios asignados a ella.</p>
      <Loaded resource={tenants}>
        {(list) =>
          list.length === 0 ? (
            <Empty>Todavía no hay sucursales.</Empty>
          ) : (
            <div>
              {list.map((tenant) => (
                <TenantPanel key={tenant.integrationTenantId} tenant={tenant} onChanged={tenants.reload} />
              ))}
            </div>
          )
        }
      </Loaded>
      <CreateTenant onCreated={tenants.reload} />
    </>
  );
}

function TenantFields({
  values,
  onValues,
  errors,
  withToken,
}: {
  values: TenantValues;
  onValues: (values: TenantValues) => void;
  errors: Record<string, string>;
  withToken: boolean;
}) {
  const set = (field: TenantField) => (value: string) => onValues({ ...values, [field]: value });
  return (
    <>
      <Field
        label="Clave"
        required
        name="key"
        autocomplete="off"
        hint="La que indicás al vincular un comercio, por ejemplo sucursal-centro."
        value={values.key}
        onValue={set("key")}
        error={errors.key}
      />
      <Field label="Nombre" required name="name" autocomplete="off" value={values.name} onValue={set("name")} error={errors.name} />
      <Field
        label="URL de webhook"
        required
        type="url"
        name="webhookUrl"
        autocomplete="off"
        hint="https://…"
        value={values.webhookUrl}
        onValue={set("webhookUrl")}
        error={errors.webhookUrl ?? errors.webhook_url ?? errors.urlRefused}
      />
      {withToken && (
        <Field
          label="Token de validación (opcional)"
          name="webhookValidationToken"
          autocomplete="off"
          value={values.webhookValidationToken}
          onValue={set("webhookValidationToken")}
          error={errors.webhookValidationToken ?? errors.webhook_validation_token}
        />
      )}
    </>
  );
}

/** A refusal with a refused webhook address placed under the URL field (and said there only). */
function refusedUrl(error: ApiError | undefined): ApiError | undefined {
  return placedUnderField(error, "TenantWebhookUrlInvalidError", "urlRefused");
}

function fieldErrorsOf(error: ApiError | undefined): Record<string, string> {
  return refusedUrl(error)?.fieldErrors ?? {};
}

const EMPTY_TENANT: TenantValues = { key: "", name: "", webhookUrl: "", webhookValidationToken: "" };

function CreateTenant({ onCreated }: { onCreated: () => void }) {
  const [values, setValues] = useState(EMPTY_TENANT);
  const create = useAction(() =>
    adminApi.tenants.createTenant({
      tenantCreate: {
        key: values.key.trim(),
        name: values.name.trim(),
        webhookUrl: values.webhookUrl.trim(),
        ...(values.webhookValidationToken.trim() ? { webhookValidationToken: values.webhookValidationToken.trim() } : {}),
      },
    }),
  );
  return (
    <section class="panel" aria-labelledby="create-tenant-title">
      <h2 id="create-tenant-title">Crear una sucursal</h2>
      <form
        noValidate
        onSubmit={async (event) => {
          event.preventDefault();
          if (await create.run()) {
            setValues(EMPTY_TENANT);
            onCreated();
          }
        }}
      >
        <ErrorAlert
          error={refusedUrl(create.error)}
          extra={create.error ? unplacedFieldErrors(create.error, [...TENANT_FIELDS, "webhook_url", "webhook_validation_token"]) : []}
        />
        <TenantFields values={values} onValues={setValues} errors={fieldErrorsOf(create.error)} withToken />
        <button type="submit" disabled={create.busy}>
          Crear la sucursal
        </button>
      </form>
    </section>
  );
}

function TenantPanel({ tenant, onChanged }: { tenant: TenantListItem; onChanged: () => void }) {
  const [editing, setEditing] = useState(false);
  const [values, setValues] = useState<TenantValues>({ key: tenant.key, name: tenant.name, webhookUrl: tenant.webhookUrl, webhookValidationToken: "" });
  const [confirmingDelete, setConfirmingDelete] = useState(false);
  const [token, setToken] = useState("");
  const [tokenNotice, setTokenNotice] = useState<string | undefined>(undefined);
  const id = tenant.integrationTenantId;
  const update = useAction(() =>
    adminApi.tenants.updateTenant({
      integrationTenantId: id,
      tenantUpdate: { key: values.key.trim(), name: values.name.trim(), webhookUrl: values.webhookUrl.trim() },
    }),
  );
  // These answer 204: `true` says the call went through (a failure is `undefined`, with its error).
  const remove = useAction(async () => {
    await adminApi.tenants.deleteTenant({ integrationTenantId: id });
    return true;
  });
  const setValidationToken = useAction(async () => {
    await adminApi.tenants.setTenantValidationToken({ integrationTenantId: id, tenantValidationTokenUpdate: { webhookValidationToken: token } });
    return true;
  });
  const removeValidationToken = useAction(async () => {
    await adminApi.tenants.deleteTenantValidationToken({ integrationTenantId: id });
    return true;
  });
  const titleId = `tenant-${id}`;
  return (
    <section class="panel" aria-labelledby={titleId}>
      <h2 id={titleId}>{tenant.name}</h2>
      <dl class="facts">
        <dt>Clave</dt>
        <dd class="mono">{tenant.key}</dd>
        <dt>URL de webhook</dt>
        <dd class="mono">{tenant.webhookUrl}</dd>
        <dt>Token de validación</dt>
        <dd data-testid="tenant-token">{tenant.hasValidationToken ? "Configurado" : "Sin token"}</dd>
      </dl>
      <button type="button" class="button-secondary" aria-expanded={editing} onClick={() => setEditing(!editing)}>
        Editar
      </button>
      {confirmingDelete ? (
        <Confirmation
          label="Confirmar la eliminación"
          confirmLabel="Sí, eliminar"
          busy={remove.busy}
          error={remove.error}
          onConfirm={async () => (await remove.run()) && onChanged()}
          onCancel={() => setConfirmingDelete(false)}
        >
          ¿Eliminar la sucursal «{tenant.name}»? Su clave queda libre.
        </Confirmation>
      ) : (
        <button type="button" class="button-secondary" onClick={() => setConfirmingDelete(true)}>
          Eliminar
        </button>
      )}
      {editing && (
        <form
          noValidate
          onSubmit={async (event) => {
            event.preventDefault();
            if (await update.run()) {
              setEditing(false);
              onChanged();
            }
          }}
        >
          <ErrorAlert error={refusedUrl(update.error)} extra={update.error ? unplacedFieldErrors(update.error, [...TENANT_FIELDS, "webhook_url"]) : []} />
          <TenantFields values={values} onValues={setValues} errors={fieldErrorsOf(update.error)} withToken={false} />
          <button type="submit" disabled={update.busy}>
            Guardar la sucursal
          </button>
        </form>
      )}
      <h3>Token de validación</h3>
      {tokenNotice && <Notice>{tokenNotice}</Notice>}
      <form
        noValidate
        onSubmit={async (event) => {
          event.preventDefault();
          setTokenNotice(undefined);
          if (await setValidationToken.run()) {
            setToken("");
            setTokenNotice("Token guardado.");
            onChanged();
          }
        }}
      >
        <ErrorAlert
          error={setValidationToken.error ?? removeValidationToken.error}
          extra={setValidationToken.error ? unplacedFieldErrors(setValidationToken.error, ["webhookValidationToken"]) : []}
        />
        <Field
          label="Token nuevo"
          required
          name="webhookValidationToken"
          autocomplete="off"
          hint="Se envía en el header validation-token de los eventos a esta sucursal; no se vuelve a mostrar."
          value={token}
          onValue={setToken}
          error={setValidationToken.error?.fieldErrors.webhookValidationToken}
        />
        <button type="submit" disabled={setValidationToken.busy}>
          Guardar el token
        </button>
        {tenant.hasValidationToken && (
          <button
            type="button"
            class="button-secondary"
            disabled={removeValidationToken.busy}
            onClick={async () => {
              setTokenNotice(undefined);
              if (await removeValidationToken.run()) {
                setTokenNotice("Token quitado.");
                onChanged();
              }
            }}
          >
            Quitar el token
          </button>
        )}
      </form>
    </section>
  );
}
